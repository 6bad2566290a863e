package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.store.ExperimentStore;

/**
 * A runtime killed at each step of creating an experiment leaves a folder that is either resumed
 * (its definition was stored) or removed (it was not); the steps are replayed here one by one.
 */
public class CreationMarkerTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Path begun(String id) throws IOException {
        Path directory = folder.getRoot().toPath().resolve("experiments").resolve(id);
        CreationMarker.begin(directory);
        return directory;
    }

    @Test
    public void aFolderNeverExistsWithoutItsMarkerWhileBeingCreated() throws Exception {
        Path directory = begun("mark0001");
        assertTrue(CreationMarker.present(directory));
        try (var entries = Files.list(directory.getParent())) {
            assertEquals("no staging folder is left", 1, entries.count());
        }
    }

    @Test
    public void killedBeforeTheStoreExistedTheFolderIsRemoved() throws Exception {
        Path directory = begun("mark0002");
        Files.createDirectories(directory.resolve("trials"));
        assertTrue(CreationMarker.settle(directory));
        assertFalse(Files.exists(directory));
    }

    @Test
    public void killedBeforeTheDefinitionWasStoredTheFolderIsRemoved() throws Exception {
        Path directory = begun("mark0003");
        for (String sub : new String[] {"db", "log", "trials", "checkpoint"}) {
            Files.createDirectories(directory.resolve(sub));
        }
        ExperimentStore.open(directory).close();
        assertTrue(CreationMarker.settle(directory));
        assertFalse(Files.exists(directory));
    }

    @Test
    public void killedAfterTheDefinitionWasStoredItIsResumable() throws Exception {
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.getRoot().toPath().resolve("experiments"));
        Experiment created = Experiment.create("mark0004", setup.config());
        Path directory = created.directory();
        created.detach();
        // as if killed between storing the definition and removing the marker
        Files.writeString(directory.resolve(CreationMarker.NAME), "999999999\n");
        assertFalse(CreationMarker.settle(directory));
        assertFalse(CreationMarker.present(directory));
        Experiment reopened = Experiment.reopen("mark0004", directory);
        try {
            assertEquals(1, reopened.config().trialConcurrency());
        } finally {
            reopened.detach();
        }
    }

    @Test
    public void aFolderAnotherLiveProcessIsCreatingIsLeftAlone() throws Exception {
        Path directory = begun("mark0005");
        Process other = new ProcessBuilder("sleep", "30").start();
        try {
            Files.writeString(directory.resolve(CreationMarker.NAME), other.pid() + "\n");
            IOException refused = assertThrows(IOException.class, () -> CreationMarker.settle(directory));
            assertTrue(refused.getMessage(), refused.getMessage().contains("being created by process " + other.pid()));
            assertTrue(Files.exists(directory));
        } finally {
            other.destroyForcibly().waitFor();
        }
    }
}
