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

/** Which way a Kubernetes session's keepers report ({@code keeper.transport}), and why. */
public class ReportRouteTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private NfsShare nfs() throws Exception {
        return NfsShare.open("10.0.0.5", "/exports/nni", folder.newFolder("share").toString(), folder.getRoot().toPath().resolve("unused"));
    }

    @Test
    public void autoWithAnNfsShareMountedHereReportsThroughChannelFoldersInTheExperimentsFolder() throws Exception {
        NfsShare share = nfs();
        ReportRoute route = ReportRoute.choose("auto", share, "ab12cd34", "nni.ts.kubeflow");
        Path channels = share.stagingFolder("ab12cd34").resolve("channels");
        assertEquals(KeeperTransport.sharedFiles(channels, "/tmp/mount/nni/ab12cd34/channels"), route.transport());
        assertTrue(Files.isDirectory(channels));
        assertEquals("keeper.transport = auto: the experiment's share (the NFS share 10.0.0.5:/exports/nni) is mounted on this"
                + " machine, so the pods need not reach the manager", route.why());
        assertEquals(route.transport(), ReportRoute.choose(" Files ", share, "ab12cd34", "nni.ts.kubeflow").transport());
        assertEquals("keeper.transport = files", ReportRoute.choose("files", share, "ab12cd34", "nni.ts.kubeflow").why());
    }

    @Test
    public void httpIsKeptAndAutoWithoutAShareReadHereFallsBackToHttpSayingWhy() throws Exception {
        ReportRoute http = ReportRoute.choose("http", nfs(), "ab12cd34", "nni.ts.kubeflow");
        assertFalse(http.transport().files());
        assertEquals("keeper.transport = http", http.why());
        ReportRoute uploaded = ReportRoute.choose("auto", new UploadedShare(), "ab12cd34", "nni.ts.kubeflow");
        assertFalse(uploaded.transport().files());
        assertEquals("keeper.transport = auto: the Azure file share acct/share is reached through its REST API only, not read on"
                + " this machine, so the pods call the manager's port", uploaded.why());
        ReportRoute none = ReportRoute.choose("", null, "ab12cd34", "nni.ts.adaptdl");
        assertFalse(none.transport().files());
        assertEquals("keeper.transport = auto: this platform's pods have no experiment share, so the pods call the manager's port",
                none.why());
    }

    @Test
    public void filesWithoutAShareReadHereAndAnUnknownValueAreRefusedNamingTheSetting() {
        try {
            ReportRoute.choose("files", new UploadedShare(), "ab12cd34", "nni.ts.frameworkcontroller");
            fail("files without a share read here was accepted");
        } catch (PlatformException e) {
            assertEquals("keeper.transport = files needs the experiment's storage as an NFS share mounted on this machine, and the"
                    + " Azure file share acct/share is reached through its REST API only, not read on this machine; set"
                    + " keeper.transport to http or auto in etc/nni.ts.frameworkcontroller.cfg", e.getMessage());
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
        public List<String> release() {
            return List.of();
        }
    }
}
