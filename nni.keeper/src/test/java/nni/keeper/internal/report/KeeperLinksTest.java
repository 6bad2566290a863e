package nni.keeper.internal.report;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.experiment.ExperimentInfo;
import nni.http.HttpError;

/** The keeper links hear the engine's experiments through the listener whiteboard, not through the manager. */
public class KeeperLinksTest {

    private static final KeeperPeer PEER = new KeeperPeer() {
        @Override
        public Map<String, Object> handshakeAccepted(String keeperVersion) {
            return Map.of();
        }

        @Override
        public void handshakeRefused(String message) {
        }

        @Override
        public void apply(List<KeeperReport> reports) {
        }
    };

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final KeeperLinks links = new KeeperLinks("test");

    @Test
    public void aStoppedExperimentsKeepersAreForgottenAndItsLinkFileDeleted() throws Exception {
        Path directory = linkFileOf("exp1");
        links.register("exp1", "envA", "secret", PEER);
        links.register("other", "envA", "secret", PEER);
        links.experimentChanged(open("exp1", directory, false));

        links.experimentClosed("exp1", true);

        assertNull(links.find("exp1", "envA"));
        assertFalse(KeeperLinkFile.lists(directory, "envA", "secret"));
        assertNotNull("another experiment's keeper stays", links.find("other", "envA"));
    }

    @Test
    public void aDetachedExperimentKeepsItsLinkFileForItsResume() throws Exception {
        assertTrue(listedAfterClosing(false, false));
    }

    /** Resuming an experiment that was only viewed closes the view as stopped: the keepers it left must stay listed. */
    @Test
    public void aViewedExperimentClosedToBeResumedKeepsItsLinkFile() throws Exception {
        assertTrue(listedAfterClosing(true, true));
    }

    /**
     * A session that ends sends its keepers a stop and forgets them at once: a keeper asking again
     * before it has taken the stop is told, and only with its own token, that a stop was sent.
     */
    @Test
    public void aKeeperForgottenAfterItsStopIsToldSoWithItsOwnToken() {
        KeeperLink link = links.register("exp1", "envA", "secret", PEER);
        link.send(Map.of("type", "stop"));
        links.unregister(link);

        HttpError refusal = links.stoppedRefusal("exp1", "envA", "secret").orElseThrow();
        assertEquals(410, refusal.status());
        assertEquals(Boolean.TRUE, refusal.body().get("stopped"));
        assertTrue(refusal.body().get("error").toString(), refusal.body().get("error").toString().contains("envA"));
        assertTrue("a wrong token learns nothing", links.stoppedRefusal("exp1", "envA", "other").isEmpty());
        assertTrue("no token learns nothing", links.stoppedRefusal("exp1", "envA", null).isEmpty());
        assertTrue("another experiment's keeper of that id was not stopped", links.stoppedRefusal("exp2", "envA", "secret").isEmpty());
    }

    /** The experiment's stop is when every session stops its keepers: the word outlives the experiment's links. */
    @Test
    public void aKeeperStoppedWithItsExperimentIsToldSoAfterTheExperimentClosed() throws Exception {
        links.experimentChanged(open("exp1", linkFileOf("exp1"), false));
        links.register("exp1", "envA", "secret", PEER).send(Map.of("type", "stop"));

        links.experimentClosed("exp1", true);

        assertTrue(links.stoppedRefusal("exp1", "envA", "secret").isPresent());
    }

    @Test
    public void aKeeperForgottenWithoutAStopIsNotToldItWasStopped() {
        KeeperLink link = links.register("exp1", "envA", "secret", PEER);
        link.send(Map.of("type", "kill", "trial", "T1"));
        links.unregister(link);

        assertTrue(links.stoppedRefusal("exp1", "envA", "secret").isEmpty());
    }

    /** A keeper registered again under the id (a new environment) is a new keeper: the old one's stop is not its. */
    @Test
    public void aKeeperRegisteredAgainIsNoLongerTheStoppedOne() {
        KeeperLink link = links.register("exp1", "envA", "secret", PEER);
        link.send(Map.of("type", "stop"));
        links.unregister(link);
        links.register("exp1", "envA", "secret", PEER);
        links.unregister("exp1", "envA");

        assertTrue(links.stoppedRefusal("exp1", "envA", "secret").isEmpty());
    }

    /** @return whether the link file still lists the keeper after the experiment, opened so, was closed so */
    private boolean listedAfterClosing(boolean viewed, boolean stopped) throws Exception {
        Path directory = linkFileOf("exp1");
        links.experimentChanged(open("exp1", directory, viewed));
        links.experimentClosed("exp1", stopped);
        return KeeperLinkFile.lists(directory, "envA", "secret");
    }

    private Path linkFileOf(String experimentId) throws Exception {
        Path directory = folder.newFolder(experimentId).toPath();
        KeeperLinkFile file = KeeperLinkFile.open(directory, "http://127.0.0.1:4711/");
        file.put("envA", "secret", "Trial1", 0, "");
        file.flush();
        return directory;
    }

    private static ExperimentInfo open(String id, Path directory, boolean readOnly) {
        return ExperimentInfo.builder(id).status("RUNNING").directory(directory).readOnly(readOnly).build();
    }
}
