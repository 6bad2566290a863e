package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceRegistration;

import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.platform.TrainingPlatform;

/**
 * A platform can be updated while experiments run (issue 10): when its bundle stops, the
 * experiment's session is detached and its running trials are left as they are, RUNNING with the
 * reason as their message; the experiment waits (it does not fail, and submits nothing); when the
 * bundle starts again, the experiment re-attaches the same trials through their stored handles and
 * continues. Stopping the experiment while its platform is away ends the trials SYS_CANCELED,
 * saying their processes may still run. Where a trial runs (host, attributes) is kept in the store
 * and shown by {@code nni:trial}, also read-only after the experiment stopped.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PlatformComesBackIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final ObjectMapper JSON = new ObjectMapper();
    private Bundle echo;

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("comes-back-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    @After
    public void removeEcho() throws Exception {
        if (echo != null && echo.getState() != Bundle.UNINSTALLED) {
            echo.uninstall();
        }
    }

    /** @return the rows of nni:trials (its first two lines are the experiment and the header) */
    private List<String> trials(String status) throws Exception {
        return command(status.isEmpty() ? "nni:trials" : "nni:trials --status " + status).toString().lines().skip(2).toList();
    }

    private static List<String> ids(List<String> lines) {
        return lines.stream().map(line -> line.split("\\s+")[0]).sorted().toList();
    }

    @Test(timeout = 180_000)
    @SuppressWarnings("unchecked")
    public void anExperimentKeepsItsTrialsWhileItsPlatformIsAwayAndReattachesThemWhenItIsBack() throws Exception {
        echo = context.installBundle(echoPlatformBundle());
        echo.start();
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("code"));
        Path config = code.resolve("config.yml");
        // every parameter set contains "hold": the echo platform keeps such trials RUNNING
        Files.writeString(config, """
                searchSpace:
                  mode: {_type: choice, _value: [hold]}
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 4
                tuner:
                  name: Random
                trainingService:
                  platform: echo
                """);
        await().atMost(WAIT).until(() -> String.valueOf(command("nni:platforms")).contains("echo"));
        String created = (String) command("nni:create " + config);
        assertTrue(created, created.matches("experiment \\w{8} RUNNING in .*"));
        String id = created.split(" ")[1];
        await().atMost(WAIT).until(() -> trials("RUNNING").size() == 2);
        List<String> running = ids(trials("RUNNING"));

        echo.stop();
        await().atMost(WAIT).until(() -> trials("RUNNING").stream().allMatch(t -> t.contains("platform 'echo' is away")));
        assertEquals("the trials are left running", running, ids(trials("RUNNING")));
        assertEquals("nothing is submitted or cancelled while the platform is away", 2, trials("").size());
        String top = command("nni:top --once").toString();
        assertTrue(top, top.contains(id) && !top.contains("ERROR"));

        echo.start();
        await().atMost(WAIT).until(() -> trials("RUNNING").stream().noneMatch(t -> t.contains("is away")));
        assertEquals("the same trials are re-attached; concurrency is full", running, ids(trials("RUNNING")));
        assertEquals(2, trials("").size());
        assertTrue("no trial failed or was cancelled", trials("FAILED").isEmpty() && trials("SYS_CANCELED").isEmpty());
        Map<String, Object> trial = (Map<String, Object>) command("nni:trial " + running.get(0));
        assertEquals("echo-host", trial.get("host"));
        assertEquals(Map.of("runs", "nothing"), trial.get("attributes"));
        assertEquals("echo:" + running.get(0), trial.get("handle"));

        // stopped while its platform is away: nothing can cancel the trials, so they end SYS_CANCELED
        echo.stop();
        await().atMost(WAIT).until(() -> trials("RUNNING").stream().allMatch(t -> t.contains("is away")));
        assertEquals("experiment " + id + " stopped", command("nni:halt " + id));
        assertEquals("experiment " + id + " VIEWED, 2 trials", command("nni:view " + id));
        List<String> cancelled = trials("SYS_CANCELED --experiment " + id); // ended: no longer the default
        assertEquals(running, ids(cancelled));
        assertTrue(cancelled.toString(), cancelled.get(0).contains("the experiment stopped while platform 'echo' is away")
                && cancelled.get(0).contains("may still run"));
        Map<String, Object> viewed = (Map<String, Object>) command("nni:trial " + running.get(1));
        assertEquals("host and attributes come back from the store", "echo-host", viewed.get("host"));
        assertEquals(Map.of("runs", "nothing"), viewed.get("attributes"));
    }

    /** @return the rows of nni:trials of one experiment, with that status ("" for all) */
    private List<String> rows(String id, String status) throws Exception {
        return command("nni:trials --experiment " + id + (status.isEmpty() ? "" : " --status " + status)).toString().lines()
                .skip(2).toList();
    }

    /**
     * Issue 15, hybrid: the echo member's bundle stops while the local member runs; the echo trial is
     * left RUNNING with the reason (as for a single platform), the local member keeps taking and
     * finishing trials, and when the bundle is back the echo member re-attaches its trial.
     */
    @Test(timeout = 180_000)
    public void aHybridMemberWhosePlatformLeavesDoesNotStopTheOthers() throws Exception {
        echo = context.installBundle(echoPlatformBundle());
        echo.start();
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("hybrid"));
        Path release = code.resolve("release");
        // local trials wait for the release file (bounded), so that most of them run after echo left
        Files.writeString(code.resolve("trial.sh"), "for i in $(seq 1200); do [ -e '" + release + "' ] && exit 0; sleep 0.1; done; exit 1\n");
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  mode: {_type: choice, _value: [hold]}
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 5
                tuner:
                  name: Random
                trainingService:
                  - platform: local
                  - platform: echo
                """);
        await().atMost(WAIT).until(() -> String.valueOf(command("nni:platforms")).contains("echo"));
        String created = (String) command("nni:create " + config);
        assertTrue(created, created.matches("experiment \\w{8} RUNNING in [^\\n]*"));
        String id = created.split(" ")[1];
        await().atMost(WAIT).until(() -> rows(id, "RUNNING").size() == 2);
        List<String> onEcho = rows(id, "RUNNING").stream().filter(row -> row.matches("\\S+ +\\d+ +RUNNING +echo .*")).toList();
        assertEquals(rows(id, "").toString(), 1, onEcho.size());
        String echoTrial = ids(onEcho).get(0);

        echo.stop();
        await().atMost(WAIT).until(() -> rows(id, "RUNNING").stream().anyMatch(t -> t.startsWith(echoTrial) && t.contains("is away")));
        Files.writeString(release, "go");
        // the local member takes the other four trials one after another while echo is away
        await().atMost(WAIT).until(() -> rows(id, "SUCCEEDED").size() == 4);
        assertTrue(rows(id, "SUCCEEDED").stream().allMatch(row -> row.matches("\\S+ +\\d+ +SUCCEEDED +local .*")));
        assertEquals("the echo trial is left running", List.of(echoTrial), ids(rows(id, "RUNNING")));
        String status = JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body()).get("status").asText();
        assertTrue("the experiment waits for the echo trial: " + status, status.equals("NO_MORE_TRIAL"));

        echo.start();
        await().atMost(WAIT).until(() -> rows(id, "RUNNING").stream().anyMatch(t -> t.startsWith(echoTrial) && !t.contains("is away")));
        @SuppressWarnings("unchecked")
        Map<String, Object> trial = (Map<String, Object>) command("nni:trial " + echoTrial);
        assertEquals("echo", trial.get("platform"));
        assertEquals("echo:" + echoTrial, trial.get("handle"));
        assertEquals("experiment " + id + " stopped", command("nni:halt " + id));
    }

    /**
     * Issue 15, hybrid: a member whose platform refuses a session (a cluster refusing the
     * credentials) leaves the experiment running on the others, named in nni:create's answer; when
     * no member opens, create fails naming each member and why.
     */
    @Test(timeout = 180_000)
    public void aHybridMemberThatCannotOpenLeavesTheOthersRunningAndNoMemberFailsTheCreate() throws Exception {
        ServiceRegistration<TrainingPlatform> refusing = TestPlatforms.refusing(context);
        try {
            Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("refusing"));
            String common = """
                    searchSpace:
                      x: {_type: choice, _value: [1, 2, 3]}
                    trialCommand: "true"
                    trialCodeDirectory: .
                    trialConcurrency: 2
                    tuner:
                      name: GridSearch
                    trainingService:
                    """;
            Path config = Files.writeString(code.resolve("config.yml"), common + "  - platform: local\n  - platform: refusing\n");
            String created = (String) command("nni:create " + config);
            assertTrue(created, created.matches("experiment \\w{8} \\w+ in .*\nnot running on: trainingService\\[1\\] "
                    + "\\(refusing\\) could not be opened: the cluster refused the credentials"));
            String id = created.split(" ")[1];
            await().atMost(WAIT).until(() -> rows(id, "SUCCEEDED").size() == 3);
            assertTrue(rows(id, "").stream().allMatch(row -> row.matches("\\S+ +\\d+ +SUCCEEDED +local .*")));
            await().atMost(WAIT).until(() -> JSON.readTree(get("api/v1/nni/check-status?experiment_id=" + id).body())
                    .get("status").asText().equals("DONE"));
            command("nni:halt " + id);

            Path none = Files.writeString(code.resolve("none.yml"), common + "  - platform: refusing\n  - platform: refusing\n");
            Exception failed = assertThrows(Exception.class, () -> command("nni:create " + none));
            assertTrue(failed.getMessage(), failed.getMessage().contains("no member of the hybrid experiment could be opened: "
                    + "trainingService[0] (refusing) could not be opened: the cluster refused the credentials; "
                    + "trainingService[1] (refusing) could not be opened: the cluster refused the credentials"));
        } finally {
            refusing.unregister();
        }
    }
}
