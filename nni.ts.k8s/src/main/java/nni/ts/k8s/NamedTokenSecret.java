package nni.ts.k8s;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;

import nni.api.platform.PlatformException;

/**
 * The keepers' tokens as keys of one Secret that an administrator created and the platform setting
 * {@code keeper.token.secret} names ({@link KeeperToken#NAMED_SECRET}): for users who may neither
 * create nor delete Secrets, only {@code get} and {@code patch} that one. Each environment's token
 * is the key named after its job object, added by a JSON merge patch before the job is created and
 * removed by a JSON patch when the job is deleted; the containers read it through
 * {@code secretKeyRef}. Nothing else of the Secret is touched.
 */
final class NamedTokenSecret {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String namespace;
    private final String name;

    NamedTokenSecret(KubernetesClient client, String namespace, String name) {
        this.client = client;
        this.namespace = namespace;
        this.name = name;
    }

    String name() {
        return name;
    }

    /**
     * Adds {@code key} with the token.
     *
     * @throws PlatformException when the Secret does not exist in the namespace, naming it and the setting
     * @throws KubernetesClientException for any other refusal (the caller names what it was creating)
     */
    void put(String key, String token) throws PlatformException {
        try {
            patch(Map.of(key, Base64.getEncoder().encodeToString(token.getBytes(StandardCharsets.UTF_8))));
        } catch (KubernetesClientException e) {
            if (Messages.status(e) == 404) {
                throw new PlatformException("Secret '" + name + "' (keeper.token.secret) does not exist in namespace '" + namespace
                        + "'; create it once (kubectl create secret generic " + name + " -n " + namespace + ")", e);
            }
            throw e;
        }
    }

    /**
     * Removes the keys of the environments whose objects are {@code keys}, each by a JSON patch
     * {@code remove}; a key already gone (the patch refused, 422) is left at that.
     */
    void remove(List<String> keys) {
        for (String key : keys) {
            String patch = "[{\"op\":\"remove\",\"path\":\"/data/" + key.replace("~", "~0").replace("/", "~1") + "\"}]";
            try {
                client.secrets().inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON), patch);
            } catch (KubernetesClientException e) {
                if (Messages.status(e) != 422) {
                    throw e;
                }
            }
        }
    }

    /** Removes every key of the experiment's environments: the keys that hold its id (every object name does). */
    void removeExperiment(String experimentId) {
        Secret secret = client.secrets().inNamespace(namespace).withName(name).get();
        if (secret == null || secret.getData() == null) {
            return;
        }
        String id = experimentId.toLowerCase(Locale.ROOT);
        List<String> keys = new ArrayList<>();
        secret.getData().keySet().stream().filter(key -> key.contains(id)).forEach(keys::add);
        remove(keys);
    }

    private void patch(Map<String, String> data) {
        String patch;
        try {
            patch = JSON.writeValueAsString(Map.of("data", data));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
        client.secrets().inNamespace(namespace).withName(name).patch(PatchContext.of(PatchType.JSON_MERGE), patch);
    }
}
