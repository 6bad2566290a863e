package nni.ts.k8s;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The configuration every Kubernetes platform component takes ({@code etc/nni.ts.kubeflow.cfg},
 * {@code etc/nni.ts.frameworkcontroller.cfg}, {@code etc/nni.ts.adaptdl.cfg}). One type for the
 * three, so that they read the same keys the same way.
 */
@ObjectClassDefinition(name = "NNI Kubernetes platform", description = "How a Kubernetes platform reaches its cluster and runs keepers")
public @interface KubernetesPlatformConfig {

    @AttributeDefinition(description = "A kubeconfig file; empty: the pod's service account when KUBERNETES_SERVICE_HOST is set,"
            + " else $KUBECONFIG, else $HOME/.kube/config")
    String kubeconfig() default "";

    @AttributeDefinition(description = "The kubeconfig context to use; empty: its current context")
    String context() default "";

    @AttributeDefinition(description = "Where the experiments' NFS share (storage: server, path; AdaptDL: the trials' nfs, for"
            + " keeper.transport files) is mounted on this machine; empty: where /proc/mounts shows it, else mounted with sudo"
            + " under the experiment's folder")
    String nfs_mount_path() default "";

    @AttributeDefinition(description = "storageType azureStorage: the Microsoft Entra credential that reads the storage key"
            + " from Key Vault: auto (a service principal from AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, else a"
            + " managed identity, else the Azure CLI's login), environment, managed-identity or azure-cli")
    String azure_credential() default "auto";

    @AttributeDefinition(description = "storageType azureStorage: the Azure CLI's command, for credential azure-cli")
    String az_command() default "az";

    @AttributeDefinition(description = "storageType azureStorage: a Key Vault's address, {vault} standing for keyVaultName"
            + " (another cloud: https://{vault}.vault.azure.cn)")
    String keyvault_url() default "https://{vault}.vault.azure.net";

    @AttributeDefinition(description = "storageType azureStorage: the token audience of Key Vault")
    String keyvault_resource() default "https://vault.azure.net/";

    @AttributeDefinition(description = "storageType azureStorage: a storage account's Azure Files endpoint, {account} standing"
            + " for azureAccount (another cloud: https://{account}.file.core.chinacloudapi.cn)")
    String azure_files_url() default "https://{account}.file.core.windows.net";

    @AttributeDefinition(description = "storageType azureStorage: where the Azure file share is mounted on this machine (an SMB"
            + " mount, as mount -t cifs //<account>.file.core.windows.net/<share>); empty: not mounted here, the manager only"
            + " uploads to it. Needed for keeper.transport files with an Azure file share")
    String azureStorage_mount() default "";

    @AttributeDefinition(description = "storageType azureStorage: seconds one request to Key Vault, Microsoft Entra ID or"
            + " Azure Files may take")
    int azure_request_timeout_seconds() default 60;

    @AttributeDefinition(description = "The trial keeper the containers run: python (Python 3.7+, which NNI's images and"
            + " the PyTorch and TensorFlow ones have), java (Java 17+ in the image) or auto (Java 17+ when the image has it,"
            + " else Python)")
    String keeper() default "python";

    @AttributeDefinition(description = "How the containers get their keeper's token: secret (a Secret per environment, read"
            + " through secretKeyRef; the user needs rights to create and delete Secrets; or, with keeper.token.secret, a key"
            + " of that one Secret) or environment (a plain value in the"
            + " pod spec: anyone who may read the job objects can read it; for users without rights on Secrets)")
    String keeper_token() default "secret";

    @AttributeDefinition(description = "With keeper.token=secret: the name of a Secret in the experiments'"
            + " namespace, made once by an administrator, that holds the keepers' tokens (one key per job, added and removed by"
            + " patches); the user then needs only get and patch on that Secret instead of creating and deleting Secrets."
            + " Empty: a Secret per environment")
    String keeper_token_secret() default "";

    @AttributeDefinition(description = "How the keepers in the pods talk to the manager: files (channel folders on the"
            + " experiment's share, which this machine mounts too: an NFS share, or an Azure file share at azureStorage.mount;"
            + " the pods need not reach the manager's port), http (to nniManagerIp and the manager's port) or auto (files when"
            + " nniManagerIp is not set, the manager's port is bound to loopback only and such a share is mounted here; else http)")
    String keeper_transport() default "auto";

    @AttributeDefinition(description = "Most jobs (trials, or environments in reuseMode) alive at once")
    int max_environments() default 64;

    @AttributeDefinition(description = "reuseMode: seconds an environment may stay idle before it is deleted")
    int reuse_idle_seconds() default 600;

    @AttributeDefinition(description = "Seconds a cancelled trial's keeper has to report before its job is deleted anyway")
    int cancel_grace_seconds() default 30;

    @AttributeDefinition(description = "One job per trial: seconds a job may run on after its trial ended (a role that does not"
            + " end by itself) before it is deleted")
    int stop_grace_seconds() default 10;
}
