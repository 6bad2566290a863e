package nni.ts.aml.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.platform.PlatformException;

/** How {@code keeper.transport} is resolved for an Azure ML session. */
public class AmlChannelTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void autoTakesTheDatastoreWhenThePortIsOnLoopbackAndNoNniManagerIpIsGiven() throws Exception {
        Path mount = folder.newFolder("share").toPath();
        AmlChannel channel = AmlChannel.choose("auto", "workspacefilestore", mount.toString(), null, "127.0.0.1", "exp1");
        assertTrue(channel.transport().files());
        assertEquals(mount.resolve("nni-experiments/exp1/channels"), channel.transport().localRoot());
        assertEquals("${{outputs.nni_channels}}/channels", channel.transport().workerRoot());
        assertTrue(Files.isDirectory(channel.transport().localRoot()));
        assertEquals(Map.of("nni_channels", Map.of("jobOutputType", "uri_folder", "mode", "ReadWriteMount",
                "uri", "azureml://datastores/workspacefilestore/paths/nni-experiments/exp1/")), channel.outputs());
    }

    @Test
    public void autoKeepsHttpWhenTheComputeHasAnAddressOrNoMountIsConfigured() throws Exception {
        String mount = folder.newFolder("share").toString();
        assertFalse(AmlChannel.choose("auto", "workspacefilestore", mount, "10.0.0.4", "127.0.0.1", "e").transport().files());
        assertFalse(AmlChannel.choose("auto", "workspacefilestore", mount, null, null, "e").transport().files());
        assertFalse(AmlChannel.choose("auto", "workspacefilestore", mount, null, "0.0.0.0", "e").transport().files());
        AmlChannel none = AmlChannel.choose("auto", "workspacefilestore", "", null, "127.0.0.1", "e");
        assertFalse(none.transport().files());
        assertTrue(none.why(), none.why().contains("datastore.mount"));
        assertFalse(AmlChannel.choose("http", "workspacefilestore", mount, null, "127.0.0.1", "e").transport().files());
        assertTrue(AmlChannel.choose("files", "workspacefilestore", mount, "10.0.0.4", null, "e").transport().files());
    }

    @Test
    public void wrongSettingsAreRefusedNamingTheKey() throws Exception {
        String mount = folder.newFolder("share").toString();
        assertTrue(assertThrows(PlatformException.class, () -> AmlChannel.choose("ftp", "s", mount, null, null, "e"))
                .getMessage().contains("keeper.transport: expected http, files or auto, got \"ftp\""));
        assertTrue(assertThrows(PlatformException.class, () -> AmlChannel.choose("files", "s", " ", null, null, "e"))
                .getMessage().contains("keeper.transport = files needs datastore.mount"));
        assertTrue(assertThrows(PlatformException.class, () -> AmlChannel.choose("files", "s", mount + "/absent", null, null, "e"))
                .getMessage().contains("datastore.mount " + mount + "/absent is not a folder"));
        assertTrue(assertThrows(PlatformException.class, () -> AmlChannel.choose("files", "a/b", mount, null, null, "e"))
                .getMessage().contains("datastore: expected a datastore name"));
    }
}
