package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.BundleListener;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.wiring.FrameworkWiring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Issue 27: a face bundle can be updated while experiments run. Updating {@code nni.web} (the login
 * gate, the HTTP limits and NNI's REST routes) withdraws the servlets that wait for the gate and registers them again
 * with the new one; updating {@code nni.ui} (the web UI's pages and its JSON) withdraws its servlet and
 * registers it again; updating {@code nni.shell} (the Gogo commands, NNI's registry for nnictl)
 * withdraws its commands and registers them again, and the experiment's entry in NNI's registry comes
 * back with its status and a live pid of its own (nnictl can stop it again). The running experiment is not
 * touched by any of them: its trials go on, end SUCCEEDED, and each ran once.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class FaceBundleUpdateIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String REST_SERVLET = "(component.name=nni.web.internal.rest.NniApiServlet)";
    private static final String UI_SERVLET = "(component.name=nni.ui.internal.api.UiApiServlet)";
    private static final String SHELL_COMMANDS = "(component.name=nni.shell.internal.command.ExperimentCommands)";
    private static final ObjectMapper JSON = new ObjectMapper();

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("web-update-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")), frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    /** @return the rows of nni:trials of one experiment, with that status ("" for all) */
    private List<String> rows(String id, String status) throws Exception {
        return command("nni:trials --experiment " + id + (status.isEmpty() ? "" : " --status " + status)).toString().lines()
                .skip(2).toList();
    }

    private static Set<String> ids(List<String> rows) {
        return Set.copyOf(rows.stream().map(row -> row.split("\\s+")[0]).toList());
    }

    @Test(timeout = 300_000)
    public void updatingTheFaceBundlesWhileAnExperimentRunsLeavesItsTrialsRunningAndServesAgain() throws Exception {
        Path code = codeFolder();
        Path release = code.resolve("release");
        Path runs = code.resolve("runs");
        // each run is recorded; the trial then waits (bounded) for the release file
        Path experiments = Path.of(context.getProperty("nni.experiments.dir"));
        Path config = localExperiment(code, "echo \"$NNI_TRIAL_JOB_ID\" >> '" + runs + "'\n"
                + "for i in $(seq 1500); do [ -e '" + release + "' ] && exit 0; sleep 0.1; done; exit 1\n",
                "x: {_type: uniform, _value: [0, 1]}", 2, "Random");
        String created = (String) command("nni:create " + config);
        assertTrue(created, created.matches("experiment \\w{8} (RUNNING|NO_MORE_TRIAL) in .*"));
        String id = created.split(" ")[1];
        await().atMost(WAIT).until(() -> rows(id, "RUNNING").size() == 2);
        Set<String> running = ids(rows(id, "RUNNING"));
        assertEquals(200, get("api/v1/nni/check-status?experiment_id=" + id).statusCode());

        updateWhileRunning("nni.web", REST_SERVLET, served("api/v1/nni/check-status?experiment_id=" + id));
        assertEquals("the trials were left running", running, ids(rows(id, "RUNNING")));
        updateWhileRunning("nni.ui", UI_SERVLET, served("api/v1/nni-ui/experiments"));
        assertEquals("the trials were left running", running, ids(rows(id, "RUNNING")));

        // with both its trials submitted the experiment is NO_MORE_TRIAL, as NNI's manager says it
        await().atMost(WAIT).until(() -> registryEntry(experiments, id).path("status").asText().equals("NO_MORE_TRIAL"));
        long pidBefore = registryEntry(experiments, id).get("pid").asLong();
        updateWhileRunning("nni.shell", SHELL_COMMANDS, () -> rows(id, "RUNNING").size() == 2);
        assertEquals("the trials were left running", running, ids(rows(id, "RUNNING")));
        // the new bridge took the open experiment back: its status again (the old one left it STOPPED),
        // under a pid of its own that lives
        await().atMost(WAIT).ignoreExceptions().until(() -> {
            JsonNode entry = registryEntry(experiments, id);
            long pid = entry.get("pid").asLong();
            return entry.path("status").asText().equals("NO_MORE_TRIAL") && pid != pidBefore
                    && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        });
        await("the old bridge's pid ended").atMost(WAIT).until(() -> ProcessHandle.of(pidBefore).map(p -> !p.isAlive()).orElse(true));

        Files.writeString(release, "go");
        await().atMost(WAIT).until(() -> rows(id, "SUCCEEDED").size() == 2);
        assertEquals(running, ids(rows(id, "SUCCEEDED")));
        List<String> started = Files.readAllLines(runs);
        assertEquals("each trial ran once: " + started, 2, started.size());
        assertEquals(2, Set.copyOf(started).size());
        assertEquals("experiment " + id + " stopped", command("nni:halt " + id));
    }

    /** @return a probe that {@code path} answers 200 */
    private Callable<Boolean> served(String path) {
        return () -> get(path).statusCode() == 200;
    }

    /** @return the experiment's entry in NNI's registry file, as nnictl reads it */
    private static JsonNode registryEntry(Path experiments, String id) throws Exception {
        return JSON.readTree(experiments.resolve(".experiment").toFile()).path(id);
    }

    /**
     * Updates and refreshes a face bundle, then asserts that its service (a servlet, the commands)
     * left and came back (recorded, not sampled) and that {@code serves} holds again.
     */
    private void updateWhileRunning(String symbolicName, String serviceFilter, Callable<Boolean> serves) throws Exception {
        assertTrue(symbolicName + " serves before the update", serves.call());
        List<Integer> serviceEvents = new CopyOnWriteArrayList<>();
        ServiceListener recorder = event -> serviceEvents.add(event.getType());
        context.addServiceListener(recorder, serviceFilter);
        Bundle face = installed(symbolicName);
        List<Integer> faceEvents = new CopyOnWriteArrayList<>();
        BundleListener faceRecorder = event -> {
            if (event.getBundle().equals(face)) {
                faceEvents.add(event.getType());
            }
        };
        context.addBundleListener(faceRecorder);
        CountDownLatch refreshed = new CountDownLatch(1);
        try {
            face.update();
            context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(List.of(face), event -> {
                if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                    refreshed.countDown();
                }
            });
            assertTrue("the refresh ended", refreshed.await(WAIT.toSeconds(), TimeUnit.SECONDS));
            assertTrue(symbolicName + " was updated: " + faceEvents, faceEvents.contains(BundleEvent.UPDATED));
            assertEquals(Bundle.ACTIVE, face.getState());
            await().atMost(WAIT).ignoreExceptions().until(serves);
        } finally {
            context.removeServiceListener(recorder);
            context.removeBundleListener(faceRecorder);
        }
        assertTrue(symbolicName + "'s service was withdrawn and registered again: " + serviceEvents,
                serviceEvents.indexOf(ServiceEvent.UNREGISTERING) >= 0
                        && serviceEvents.lastIndexOf(ServiceEvent.REGISTERED) > serviceEvents.indexOf(ServiceEvent.UNREGISTERING));
    }

    private Bundle installed(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }
}
