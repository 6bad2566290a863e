package nni.ts.k8s;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.platform.PlatformException;

/** Where the manager finds the experiments' NFS share on its own machine. */
public class NfsShareTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void aMountedShareIsFoundInTheMountTable() throws Exception {
        Path mounts = folder.newFile("mounts").toPath();
        Files.writeString(mounts, String.join("\n",
                "sysfs /sys sysfs rw,nosuid 0 0",
                "10.0.0.5:/exports/other /mnt/other nfs4 rw 0 0",
                "10.0.0.5:/exports/nni/ /mnt/nni\\040share nfs4 rw,relatime 0 0",
                "10.0.0.5:/exports/nni /mnt/not-nfs fuse rw 0 0",
                ""));
        assertEquals(Path.of("/mnt/nni share"), NfsShare.mountedAt("10.0.0.5", "/exports/nni", mounts));
        assertEquals(Path.of("/mnt/nni share"), NfsShare.mountedAt("10.0.0.5", "/exports/nni/", mounts));
        assertNull(NfsShare.mountedAt("10.0.0.6", "/exports/nni", mounts));
        assertNull(NfsShare.mountedAt("10.0.0.5", "/exports/nni", folder.getRoot().toPath().resolve("no-such-file")));
    }

    @Test
    public void theSettingNamesWhereItIsAndExperimentsGetTheirFolder() throws Exception {
        Path root = folder.newFolder("share").toPath();
        NfsShare share = NfsShare.open("10.0.0.5", "/exports/nni", root.toString(), folder.getRoot().toPath().resolve("unused"));
        assertEquals(root.resolve("nni").resolve("ab12cd34"), share.stagingFolder("ab12cd34"));
        assertTrue(Files.isDirectory(root.resolve("nni").resolve("ab12cd34")));
        assertEquals("/tmp/mount/nni/ab12cd34", ExperimentShare.containerFolder("ab12cd34"));
        assertEquals(java.util.Map.of("name", "nni-vol", "nfs", java.util.Map.of("server", "10.0.0.5", "path", "/exports/nni")),
                share.volume());
        assertEquals(java.util.List.of(), share.release()); // not mounted by the manager: nothing to undo
        try {
            NfsShare.open("10.0.0.5", "/exports/nni", root.resolve("missing").toString(), root);
        } catch (PlatformException e) {
            assertEquals("nfs.mount.path " + root.resolve("missing") + " (where the NFS share 10.0.0.5:/exports/nni is mounted on"
                    + " this machine) is not a writable directory", e.getMessage());
            return;
        }
        throw new AssertionError("a missing folder was accepted");
    }
}
