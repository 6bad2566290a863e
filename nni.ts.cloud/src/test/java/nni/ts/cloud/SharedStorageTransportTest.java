package nni.ts.cloud;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.KeeperTransport;

/**
 * A platform's {@code keeper.transport}: {@code files} puts the keepers' channel folders in the
 * experiment's {@code channels/} on the shared storage, as both sides see it, and the keeper's
 * command names its folder instead of the manager's URL; {@code http} keeps the URL; anything else
 * is refused naming the setting.
 */
public class SharedStorageTransportTest {

    private final SharedStorage storage = new SharedStorage(Path.of("/mnt/nas/nni-experiments/exp1"), "/root/data/nni-experiments/exp1/");

    @Test
    public void filesPutTheChannelsOnTheSharedStorageAndTheKeeperIsToldItsFolder() {
        KeeperTransport files = storage.keeperTransport(" Files ");
        assertTrue(files.files());
        assertEquals(Path.of("/mnt/nas/nni-experiments/exp1/channels"), files.localRoot());
        assertEquals("/root/data/nni-experiments/exp1/channels", files.workerRoot());
        EnvironmentSpec spec = EnvironmentSpec.builder("env01").mode("runner").platform("dlc").experimentId("exp1")
                .managerUrl("http://10.0.0.1:8080/").token("t").codeArchive(Path.of("/x.tar.gz")).trialCommand("python3 t.py")
                .keeperFile(KeeperRuntime.PYTHON, Path.of("/k.py")).channel(files.workerRoot() + "/env01").build();
        List<String> arguments = spec.arguments("/c.tar.gz", "/w");
        assertEquals(List.of("runner", "--channel", "/root/data/nni-experiments/exp1/channels/env01"), arguments.subList(0, 3));
        assertFalse(arguments.contains("--manager"));
    }

    @Test
    public void httpKeepsTheManagersUrlAndAnythingElseIsRefused() {
        assertFalse(storage.keeperTransport("http").files());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class, () -> storage.keeperTransport("nfs"));
        assertEquals("keeper.transport: expected files or http, got \"nfs\"", refused.getMessage());
    }

    @Test
    public void autoTakesFilesOnlyWhenNothingOutsideThisMachineCanReachTheManager() {
        SharedStorage.Route unreachable = storage.keeperRoute("auto", new ManagerAddress(null, "127.0.0.1"));
        assertTrue(unreachable.transport().files());
        assertTrue(unreachable.why(), unreachable.why().startsWith("keeper.transport = auto: nniManagerIp is not set and the"
                + " manager's port is bound to 127.0.0.1 only"));
        assertFalse(storage.keeperRoute(null, new ManagerAddress("10.1.2.3", "127.0.0.1")).transport().files());
        assertFalse(storage.keeperRoute("auto", new ManagerAddress(null, "0.0.0.0")).transport().files());
        assertFalse(storage.keeperRoute("auto", new ManagerAddress(null, null)).transport().files());
        assertTrue("a setting other than auto is taken as it is",
                storage.keeperRoute("files", new ManagerAddress("10.1.2.3", null)).transport().files());
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> storage.keeperRoute("nfs", new ManagerAddress(null, null)));
        assertEquals("keeper.transport: expected auto, files or http, got \"nfs\"", refused.getMessage());
    }
}
