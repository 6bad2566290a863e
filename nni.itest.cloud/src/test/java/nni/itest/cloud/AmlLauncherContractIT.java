package nni.itest.cloud;

import static org.junit.Assert.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperRuntime;
import nni.api.testkit.environment.EnvironmentLauncherContract;
import nni.itest.cloud.emulator.aml.AmlEmulator;
import nni.ts.aml.internal.AmlPlatform;

/**
 * The {@code aml} platform's launcher (the cloud platforms' job launcher over {@code AmlApi}) keeps
 * the launcher contract against the Azure ML emulator, whose command jobs run as local processes:
 * the launcher is the one {@link AmlPlatform} opens for a session ({@link PlatformLaunchers}), with
 * the Azure CLI's login as its credential (an {@code az} that asks the emulator's Microsoft Entra ID
 * for a token with the test's service principal, as {@code az account get-access-token} would). The
 * failure cases are the workspace's answers once the session is open: 403 (the principal's role
 * assignment gone) and 429 (throttled). Every request was valid against the published API.
 */
public class AmlLauncherContractIT extends EnvironmentLauncherContract {

    private static final String TENANT = "72f988bf-86f1-41af-91ab-2d7cd011db47";
    private static final String CLIENT = "0b7e1c2a-5d4f-4e2b-9a61-3c8d7f1e2a90";
    private static final String SECRET = "aml-client-secret~contract7";
    private static final String SUBSCRIPTION = "00000000-1111-2222-3333-444444444444";

    @ClassRule
    public static final TemporaryFolder FOLDER = new TemporaryFolder();
    private static AmlEmulator aml;
    private static Path az;
    private PlatformLaunchers launchers;

    @BeforeClass
    public static void startWorkspace() throws Exception {
        aml = new AmlEmulator(TENANT, CLIENT, SECRET, SUBSCRIPTION, "nni-rg", "nni-ws", "gpu-cluster", FOLDER.newFolder("aml").toPath());
        az = FOLDER.getRoot().toPath().resolve("az");
        Files.writeString(az, String.join("\n",
                "#!/usr/bin/env python3",
                "# az account get-access-token --output json --resource R: a token of the test's service principal",
                "import json, sys, time, urllib.error, urllib.parse, urllib.request",
                "resource = sys.argv[sys.argv.index('--resource') + 1]",
                "form = urllib.parse.urlencode({'grant_type': 'client_credentials', 'client_id': '" + CLIENT + "',",
                "        'client_secret': '" + SECRET + "', 'scope': resource + '.default'}).encode()",
                "try:",
                "    answer = json.load(urllib.request.urlopen('" + aml.address() + "/" + TENANT + "/oauth2/v2.0/token', form))",
                "except urllib.error.HTTPError as e:",
                "    sys.exit('ERROR: ' + e.read().decode())",
                "print(json.dumps({'accessToken': answer['access_token'], 'expires_on': int(time.time()) + answer['expires_in'],",
                "                  'tokenType': 'Bearer'}))",
                ""));
        Files.setPosixFilePermissions(az, PosixFilePermissions.fromString("rwx------"));
    }

    @AfterClass
    public static void stopWorkspace() throws Exception {
        if (aml != null) {
            aml.close();
        }
    }

    /** Runs before the contract's cleanup: the workspace refused no request as invalid. */
    @After
    public void everyRequestWasValid() {
        aml.faults().clear();
        assertEquals("requests the emulator refused as invalid", List.of(), aml.refused());
    }

    @Override
    protected EnvironmentLauncher launcher() throws Exception {
        launchers = new PlatformLaunchers(Files.createTempDirectory(FOLDER.getRoot().toPath(), "experiments-"));
        return open();
    }

    private EnvironmentLauncher open() throws Exception {
        AmlPlatform.Config config = PlatformLaunchers.config(AmlPlatform.Config.class, Map.of("credential", "azure-cli",
                "az_command", az.toString(), "arm_endpoint", aml.address(), "keeper", "java", "keeper_transport", "http",
                "status_refresh_seconds", "1", "missing_job_seconds", "5"));
        return launchers.open(keeperSessions -> new AmlPlatform(config, keeperSessions), "aml", """
                trialCommand: sh %s
                subscriptionId: %s
                resourceGroup: nni-rg
                workspaceName: nni-ws
                computeTarget: gpu-cluster
                nniManagerIp: 127.0.0.1
                """.formatted(TRIAL_SCRIPT, SUBSCRIPTION));
    }

    @Override
    protected EnvironmentLauncher launcherThatCannotStart() throws Exception {
        EnvironmentLauncher launcher = open();
        aml.faults().failNext(1, 403);
        return launcher;
    }

    @Override
    protected EnvironmentLauncher launcherThatCannotStartNow() throws Exception {
        EnvironmentLauncher launcher = open();
        aml.faults().failNext(1, 429);
        return launcher;
    }

    @Override
    protected void closeLauncher(EnvironmentLauncher launcher) {
        launchers.close(launcher);
    }

    @Override
    protected Map<KeeperRuntime, Path> keeperFiles() {
        return Map.of(KeeperRuntime.JAVA, Path.of(System.getProperty("nni.keeper.jar")));
    }

    @Override
    protected String platform() {
        return "aml";
    }
}
