package nni.ts.k8s;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.KeeperTransport;
import nni.api.platform.PlatformException;
import nni.ts.cloud.ManagerAddress;

/** Which way a Kubernetes session's keepers report ({@code keeper.transport}), and why. */
public class ReportRouteTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private NfsShare nfs() throws Exception {
        return NfsShare.open("10.0.0.5", "/exports/nni", folder.newFolder("share").toString(), folder.getRoot().toPath().resolve("unused"));
    }

    /** No nniManagerIp, the port on loopback only: nothing in the cluster can reach the manager. */
    private static final ManagerAddress UNREACHABLE = new ManagerAddress(null, "127.0.0.1");

    @Test
    public void autoWithoutAnAddressTheClusterReachesAndWithAShareMountedHereReportsThroughChannelFolders() throws Exception {
        NfsShare share = nfs();
        ReportRoute route = ReportRoute.choose("auto", share, "ab12cd34", UNREACHABLE, "nni.ts.kubeflow");
        Path channels = share.stagingFolder("ab12cd34").resolve("channels");
        assertEquals(KeeperTransport.sharedFiles(channels, "/tmp/mount/nni/ab12cd34/channels"), route.transport());
        assertTrue(Files.isDirectory(channels));
        assertEquals("keeper.transport = auto: nniManagerIp is not set and the manager's port is bound to 127.0.0.1 only, which the"
                + " pods cannot reach; the NFS share 10.0.0.5:/exports/nni is mounted on this machine", route.why());
        ManagerAddress localhost = new ManagerAddress(" ", "localhost");
        assertTrue(ReportRoute.choose("auto", share, "ab12cd34", localhost, "nni.ts.kubeflow").transport().files());
        assertTrue(ReportRoute.choose("auto", share, "ab12cd34", new ManagerAddress(null, "::1"), "nni.ts.kubeflow")
                .transport().files());
    }

    @Test
    public void autoWithAnAddressTheClusterMayReachStaysWithHttpEvenWithAShareMountedHere() throws Exception {
        NfsShare share = nfs();
        ReportRoute given = ReportRoute.choose("auto", share, "ab12cd34", new ManagerAddress("10.1.2.3", "127.0.0.1"),
                "nni.ts.kubeflow");
        assertFalse(given.transport().files());
        assertEquals("keeper.transport = auto: the pods call the manager at nniManagerIp 10.1.2.3", given.why());
        ReportRoute everyAddress = ReportRoute.choose("auto", share, "ab12cd34", new ManagerAddress(null, "0.0.0.0"),
                "nni.ts.kubeflow");
        assertFalse(everyAddress.transport().files());
        assertEquals("keeper.transport = auto: the pods call the manager at this machine's outward address (nniManagerIp is not set"
                + " and the port is bound to every address)", everyAddress.why());
        assertFalse(ReportRoute.choose("auto", share, "ab12cd34", new ManagerAddress(null, null), "nni.ts.kubeflow")
                .transport().files());
        ReportRoute bound = ReportRoute.choose("auto", share, "ab12cd34", new ManagerAddress(null, "10.0.0.7"),
                "nni.ts.kubeflow");
        assertEquals("keeper.transport = auto: the pods call the manager at the address the port is bound to, 10.0.0.7", bound.why());
        assertFalse("auto with an address chose files: no channels folder is made",
                Files.exists(share.stagingFolder("ab12cd34").resolve("channels")));
    }

    @Test
    public void theSettingWinsOverWhatAutoWouldFind() throws Exception {
        NfsShare share = nfs();
        ManagerAddress given = new ManagerAddress("10.1.2.3", "0.0.0.0");
        ReportRoute files = ReportRoute.choose(" Files ", share, "ab12cd34", given, "nni.ts.kubeflow");
        assertEquals(KeeperTransport.sharedFiles(share.stagingFolder("ab12cd34").resolve("channels"), "/tmp/mount/nni/ab12cd34/channels"),
                files.transport());
        assertEquals("keeper.transport = files", files.why());
        ReportRoute http = ReportRoute.choose("http", share, "ab12cd34", UNREACHABLE, "nni.ts.kubeflow");
        assertFalse(http.transport().files());
        assertEquals("keeper.transport = http", http.why());
    }

    @Test
    public void adaptdlsTrialNfsVolumeCarriesTheChannelsBelowItsContainerMountPath() throws Exception {
        Path mounted = folder.newFolder("trial-nfs").toPath();
        PodNfsShare nfs = new PodNfsShare(new PodNfsShare.Volume("10.0.0.6", "/exports/trials", "/mnt/nfs/"), mounted.toString(),
                folder.getRoot().toPath().resolve("unused"));
        ReportRoute route = ReportRoute.choose("files", nfs, "ab12cd34", new ManagerAddress("10.1.2.3", null), "nni.ts.adaptdl");
        assertEquals(KeeperTransport.sharedFiles(mounted.resolve("nni").resolve("ab12cd34").resolve("channels"),
                "/mnt/nfs/nni/ab12cd34/channels"), route.transport());
        assertTrue(Files.isDirectory(mounted.resolve("nni").resolve("ab12cd34").resolve("channels")));
        assertEquals(List.of(), nfs.release());
        PodNfsShare unmountable = new PodNfsShare(new PodNfsShare.Volume("10.0.0.6", "/exports/trials", "/mnt/nfs"),
                mounted.resolve("absent").toString(), folder.getRoot().toPath().resolve("unused"));
        ReportRoute auto = ReportRoute.choose("auto", unmountable, "ab12cd34", UNREACHABLE, "nni.ts.adaptdl");
        assertFalse(auto.transport().files());
        assertTrue(auto.why(), auto.why().contains("but the trials' NFS share 10.0.0.6:/exports/trials (at /mnt/nfs in the pods) cannot"
                + " be mounted on this machine: nfs.mount.path " + mounted.resolve("absent") + " (where the NFS share"));
        try {
            ReportRoute.choose("files", unmountable, "ab12cd34", UNREACHABLE, "nni.ts.adaptdl");
            fail("files on a share that cannot be mounted was accepted");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("keeper.transport = files: nfs.mount.path " + mounted.resolve("absent")));
        }
    }

    @Test
    public void autoWithoutAnAddressAndWithoutAShareReadHereFallsBackToHttpSayingWhy() throws Exception {
        ReportRoute uploaded = ReportRoute.choose("auto", new UploadedShare(), "ab12cd34", UNREACHABLE, "nni.ts.kubeflow");
        assertFalse(uploaded.transport().files());
        assertEquals("keeper.transport = auto: nniManagerIp is not set and the manager's port is bound to 127.0.0.1 only, but the"
                + " Azure file share acct/share is not mounted on this machine (azureStorage.mount names where); the pods must reach"
                + " the manager's port", uploaded.why());
        ReportRoute none = ReportRoute.choose("", null, "ab12cd34", UNREACHABLE, "nni.ts.adaptdl");
        assertFalse(none.transport().files());
        assertEquals("keeper.transport = auto: nniManagerIp is not set and the manager's port is bound to 127.0.0.1 only, but this"
                + " platform's pods have no share this machine reads; the pods must reach the manager's port", none.why());
    }

    @Test
    public void filesWithoutAShareReadHereAndAnUnknownValueAreRefusedNamingTheSetting() {
        try {
            ReportRoute.choose("files", new UploadedShare(), "ab12cd34", UNREACHABLE, "nni.ts.frameworkcontroller");
            fail("files without a share read here was accepted");
        } catch (PlatformException e) {
            assertEquals("keeper.transport = files needs a share the pods and this machine both see, and the Azure file share"
                    + " acct/share is not mounted on this machine (azureStorage.mount names where); or set keeper.transport to http"
                    + " or auto in etc/nni.ts.frameworkcontroller.cfg", e.getMessage());
        }
        try {
            ReportRoute.setting("ssh");
            fail("keeper.transport = ssh was accepted");
        } catch (IllegalArgumentException e) {
            assertEquals("keeper.transport: expected auto, files or http, got \"ssh\"", e.getMessage());
        }
    }

    /** A share the manager only uploads to, as an Azure file share. */
    private static final class UploadedShare implements ExperimentShare {

        @Override
        public Map<String, Object> volume() {
            return Map.of();
        }

        @Override
        public Path stagingFolder(String experimentId) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void publish(String experimentId) {
        }

        @Override
        public String url(String experimentId, String environmentId) {
            return "";
        }

        @Override
        public String describe() {
            return "the Azure file share acct/share";
        }

        @Override
        public String mountHint() {
            return "azureStorage.mount names where";
        }

        @Override
        public List<String> release() {
            return List.of();
        }
    }
}
