package nni.keeper.internal.reuse;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperOptions;
import nni.api.environment.LaunchedEnvironment;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;

/**
 * A platform's start of an environment may take seconds (an ssh login, a cluster's API): the
 * session has every start it needs in flight at once, and takes submits, cancels and stops while
 * they are, instead of starting one environment after another under its lock.
 */
public class ParallelStartsTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Rule
    public SessionFixture sessions = new SessionFixture();

    /** Starts that wait until the test lets them return; records which are in flight. */
    private static final class HeldLauncher implements EnvironmentLauncher {
        final Set<String> inFlight = ConcurrentHashMap.newKeySet();
        final List<String> stopped = new CopyOnWriteArrayList<>();
        final CountDownLatch release = new CountDownLatch(1);

        @Override
        public LaunchedEnvironment start(EnvironmentSpec spec, nni.api.environment.EnvironmentListener listener)
                throws PlatformException {
            inFlight.add(spec.environmentId());
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    throw new PlatformException("never released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PlatformException("interrupted");
            }
            CompletableFuture<String> ended = new CompletableFuture<>();
            return new LaunchedEnvironment() {
                @Override public String handle() { return "h-" + spec.environmentId(); }
                @Override public java.util.concurrent.CompletionStage<String> ended() { return ended; }
                @Override public void stop() {
                    stopped.add(spec.environmentId());
                    ended.complete("stopped");
                }
            };
        }
    }

    private static TrialApplication trial(String id, int sequence) {
        return TrialApplication.builder(id).sequenceId(sequence)
                .hyperParameters(HyperParameters.of("{\"parameter_id\": " + sequence + "}", 0)).build();
    }

    @Test(timeout = 120_000)
    public void everyStartIsInFlightAtOnceAndSubmitDoesNotWaitForThem() throws Exception {
        HeldLauncher launcher = new HeldLauncher();
        KeeperSession session = sessions.open(folder.getRoot().toPath(),
                KeeperOptions.builder("remote").maxEnvironments(3).build(), launcher);
        CompletableFuture<List<TrialJob>> submitted = CompletableFuture.supplyAsync(() -> {
            try {
                return List.of(session.submit(trial("Ps001", 0)), session.submit(trial("Ps002", 1)),
                        session.submit(trial("Ps003", 2)));
            } catch (PlatformException e) {
                throw new IllegalStateException(e);
            }
        });
        // all three starts are held at once: none waits for another to return
        await().atMost(Duration.ofSeconds(60)).until(() -> launcher.inFlight.size() == 3);
        assertEquals(Set.of("Ps001", "Ps002", "Ps003"), launcher.inFlight);
        List<TrialJob> jobs = submitted.get(60, TimeUnit.SECONDS);
        assertTrue(jobs.toString(), jobs.stream().allMatch(j -> j.status() == TrialStatus.WAITING));

        // a trial cancelled while its keeper is being started ends with it, once the platform returns it
        session.cancel("Ps002", false);
        launcher.release.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> launcher.stopped.contains("Ps002"));
        await().atMost(Duration.ofSeconds(60)).until(() -> sessions.changes.stream()
                .anyMatch(j -> j.id().equals("Ps002") && j.status() == TrialStatus.USER_CANCELED));
        assertTrue(launcher.stopped.toString(), !launcher.stopped.contains("Ps001") && !launcher.stopped.contains("Ps003"));
        session.close();
    }

    @Test(timeout = 120_000)
    public void aSessionClosedWhileStartsAreInFlightStopsWhatThePlatformThenReturns() throws Exception {
        HeldLauncher launcher = new HeldLauncher();
        KeeperSession session = sessions.open(folder.getRoot().toPath(),
                KeeperOptions.builder("remote").maxEnvironments(2).build(), launcher);
        session.submit(trial("Pc001", 0));
        session.submit(trial("Pc002", 1));
        await().atMost(Duration.ofSeconds(60)).until(() -> launcher.inFlight.size() == 2);
        session.close();
        // no keeper ran them: they end at once, not after the close's wait for keepers
        for (String id : List.of("Pc001", "Pc002")) {
            assertEquals(TrialStatus.USER_CANCELED, session.trial(id).orElseThrow().status());
        }
        launcher.release.countDown();
        await().atMost(Duration.ofSeconds(60)).until(() -> launcher.stopped.containsAll(List.of("Pc001", "Pc002")));
    }
}
