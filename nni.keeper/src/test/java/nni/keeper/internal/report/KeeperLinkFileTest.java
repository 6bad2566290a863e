package nni.keeper.internal.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** An experiment's keeper links as a restarted runtime finds them. */
public class KeeperLinkFileTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void aRestartedRuntimeFindsTheKeeperOfEachRunningTrialWithItsTokenSequenceAndHandle() throws Exception {
        Path experiment = folder.newFolder("exp").toPath();
        KeeperLinkFile before = KeeperLinkFile.open(experiment, "http://127.0.0.1:4711/");
        before.put("envA", "secret-a", null, 0, "");
        before.put("envB", "secret-b", null, 0, "");
        before.running("envA", "Trial1");
        before.handle("envA", "4242:1700000000000");
        before.applied("envA", 41);
        before.flush();
        before.remove("envB");
        Path file = experiment.resolve("environments").resolve("links.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));

        KeeperLinkFile after = KeeperLinkFile.open(experiment, "http://127.0.0.1:4711/");
        KeeperLinkFile.Keeper keeper = after.previousRunning("Trial1").orElseThrow();
        assertEquals(new KeeperLinkFile.Keeper("envA", "secret-a", "Trial1", 41, "4242:1700000000000"), keeper);
        assertEquals("http://127.0.0.1:4711/", after.previousManagerUrl());
        assertTrue(after.previousRunning("Trial2").isEmpty());

        assertTrue(KeeperLinkFile.lists(experiment, "envA", "secret-a"));
        assertFalse(KeeperLinkFile.lists(experiment, "envA", "secret-b"));
        assertFalse("a removed keeper is not listed", KeeperLinkFile.lists(experiment, "envB", "secret-b"));
        assertFalse(KeeperLinkFile.lists(folder.newFolder("other").toPath(), "envA", "secret-a"));

        KeeperLinkFile.delete(experiment);
        assertFalse("a stopped experiment's keepers are not listed", KeeperLinkFile.lists(experiment, "envA", "secret-a"));
    }

    /**
     * A runtime killed while it resumes (issue 26): the keepers the runtime before it left stay listed
     * until it took them back or let them go, whatever it wrote meanwhile, so that a second resume
     * finds every keeper and none is refused as unknown.
     */
    @Test
    public void keepersLeftBeforeARestartStayListedUntilTakenBackOrLetGo() throws Exception {
        Path experiment = folder.newFolder("exp").toPath();
        KeeperLinkFile first = KeeperLinkFile.open(experiment, "http://127.0.0.1:4711/");
        first.put("envA", "secret-a", "Trial1", 3, "11:1700000000000");
        first.put("envB", "secret-b", "Trial2", 5, "12:1700000000000");
        first.put("envC", "secret-c", null, 7, "13:1700000000000");

        KeeperLinkFile resuming = KeeperLinkFile.open(experiment, "http://127.0.0.1:4711/");
        resuming.put("envA", "secret-a", "Trial1", 3, "11:1700000000000"); // taken back; killed before the others
        resuming.put("envD", "secret-d", null, 0, "");

        KeeperLinkFile second = KeeperLinkFile.open(experiment, "http://127.0.0.1:4711/");
        assertEquals(new KeeperLinkFile.Keeper("envB", "secret-b", "Trial2", 5, "12:1700000000000"),
                second.previousRunning("Trial2").orElseThrow());
        assertEquals("envA", second.previousRunning("Trial1").orElseThrow().id());
        for (String keeper : java.util.List.of("A", "B", "C", "D")) {
            assertTrue("env" + keeper, KeeperLinkFile.lists(experiment, "env" + keeper, "secret-" + keeper.toLowerCase()));
        }

        second.remove("envC"); // let go: refused from now on
        assertFalse(KeeperLinkFile.lists(experiment, "envC", "secret-c"));
        assertTrue(KeeperLinkFile.lists(experiment, "envB", "secret-b"));
    }
}
