package nni.keeper.internal.reuse;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperOptions;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.http.HttpError;
import nni.keeper.internal.report.KeeperLink;
import nni.keeper.internal.report.KeeperLinkFile;
import nni.keeper.internal.report.KeeperLinks;
import nni.keeper.internal.report.KeeperPeer;
import nni.keeper.internal.report.KeeperReport;

/**
 * A session that opens after a restart (or a bundle update) takes back the keepers the link file
 * lists before their trials are re-attached. Their keepers send again at once what the runtime
 * before did not acknowledge (over files: the report files waiting in the channel folder, which
 * the share's watcher reads as soon as the folder is given to it). A report that lands as soon as
 * the keeper's link is reachable, before the session knows the keeper as one taken back, must be
 * answered "later" (503) like every report until its trial is re-attached: applied then, it named
 * a trial unknown here, was skipped, and was still acknowledged, so the keeper dropped it (metrics
 * lost, a trial's end lost, the trial RUNNING for ever).
 *
 * <p>The order is made certain: the links the session opens on apply the keeper's batch through the
 * new peer the moment it is registered (or adopted), on the opening thread. A report on a request's
 * thread, or on the watcher's, at that moment goes through the same check and then waits for the
 * session's lock, which the opening holds; so what it is answered is what this call is answered.
 */
public class TakenBackReportsTest {

    private static final String TRIAL = "Tr001";
    private static final String METRIC = "{\"type\": \"PERIODICAL\", \"sequence\": 5, \"value\": \"0.5\"}";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Rule
    public SessionFixture sessions = new SessionFixture();

    /** The keeper's batch as it arrives again after the restart: one more metric, then the trial's end. */
    private static List<KeeperReport> batch() {
        return List.of(new KeeperReport(8, "metric", TRIAL, METRIC, null),
                new KeeperReport(9, "ended", null, null, Map.of("kind", "ended", "trial", TRIAL, "code", 0L,
                        "time", System.currentTimeMillis())));
    }

    /** What the batch applied at the moment the link became reachable was answered: null when it was taken. */
    private static final class FirstLanding {
        final AtomicReference<KeeperPeer> peer = new AtomicReference<>();
        final AtomicReference<HttpError> refusal = new AtomicReference<>();
        volatile boolean applied;

        void land(KeeperPeer newPeer) {
            if (peer.compareAndSet(null, newPeer)) {
                try {
                    newPeer.apply(batch());
                    applied = true;
                } catch (HttpError e) {
                    refusal.set(e);
                }
            }
        }
    }

    @Test
    public void aReportArrivingAsTheKeepersLinkIsRegisteredAgainIsAnsweredLaterNotDropped() throws Exception {
        Path directory = folder.getRoot().toPath();
        KeeperLinkFile.open(directory, SessionFixture.URL).put("K0001", "token-1", TRIAL, 7, "");
        FirstLanding landing = new FirstLanding();
        KeeperLinks links = new KeeperLinks("9.9.9") {
            @Override
            public KeeperLink restore(String experimentId, String keeperId, String token, long applied, KeeperPeer peer) {
                KeeperLink link = super.restore(experimentId, keeperId, token, applied, peer);
                landing.land(peer); // the keeper's request finds the link from here on
                return link;
            }
        };
        takeBackAndDeliverAgain(directory, links, landing);
    }

    /** The same when the link is still live in this runtime (a detached session left it) and the new session adopts it. */
    @Test
    public void aReportArrivingAsTheKeepersLiveLinkIsAdoptedIsAnsweredLaterNotDropped() throws Exception {
        Path directory = folder.getRoot().toPath();
        KeeperLinkFile.open(directory, SessionFixture.URL).put("K0001", "token-1", TRIAL, 7, "");
        FirstLanding landing = new FirstLanding();
        KeeperLinks links = new KeeperLinks("9.9.9") {
            @Override
            public Optional<KeeperLink> adopt(String experimentId, String keeperId, KeeperPeer peer) {
                Optional<KeeperLink> link = super.adopt(experimentId, keeperId, peer);
                link.ifPresent(adopted -> landing.land(peer)); // the keeper's requests reach the new peer from here on
                return link;
            }
        };
        links.restore(SessionFixture.EXPERIMENT, "K0001", "token-1", 7, detachedSessionsPeer());
        takeBackAndDeliverAgain(directory, links, landing);
    }

    private void takeBackAndDeliverAgain(Path directory, KeeperLinks links, FirstLanding landing) throws Exception {
        EnvironmentLauncher launcher = (spec, listener) -> {
            throw new PlatformException("no environment is started in this test");
        };
        KeeperSession session = sessions.open(directory, KeeperOptions.builder("local").reuse(true).build(), launcher, links);
        try {
            assertNotNull("the keeper's link was not taken back as the session opened", landing.peer.get());
            HttpError refusal = landing.refusal.get();
            assertTrue("a report applied before the keeper's trial is re-attached was taken (and its metric dropped): "
                    + sessions.metrics, !landing.applied && refusal != null);
            assertEquals(refusal.getMessage(), 503, refusal.status());

            TrialApplication application = TrialApplication.builder(TRIAL).sequenceId(0)
                    .hyperParameters(HyperParameters.of("{\"parameter_id\": 0}", 0)).build();
            TrialJob stored = TrialJob.waiting(application, "", "").running(Instant.now()).toBuilder().handle("K0001").build();
            assertTrue(session.reattach(stored).isPresent());
            // the keeper sends its batch again, as after any 503
            landing.peer.get().apply(batch());
            assertEquals(List.of(TRIAL + " " + METRIC), sessions.metrics);
            assertEquals(TrialStatus.SUCCEEDED, session.trial(TRIAL).orElseThrow().status());
        } finally {
            session.detach();
        }
    }

    /** The peer a detached session's environment is: it answers every report "later". */
    private static KeeperPeer detachedSessionsPeer() {
        return new KeeperPeer() {
            @Override
            public Map<String, Object> handshakeAccepted(String keeperVersion) {
                throw new HttpError(503, "detached");
            }

            @Override
            public void handshakeRefused(String message) {
            }

            @Override
            public void apply(List<KeeperReport> reports) {
                throw new HttpError(503, "detached");
            }
        };
    }
}
