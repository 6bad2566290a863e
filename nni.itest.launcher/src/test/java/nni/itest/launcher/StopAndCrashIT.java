package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * {@code run} when the experiment ends otherwise than by itself: stopped over REST while run waits,
 * and the runtime killed while it creates the experiment.
 */
public class StopAndCrashIT {

    private static final Pattern BEING_CREATED = Pattern.compile("experiment (\\w{8}) is being created in (\\S+)");

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    private Path config(String trial, int trials) throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), trial);
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: %d
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                """.formatted(trials));
        return config;
    }

    @Test(timeout = 120_000)
    public void stoppingOverRestWhileRunWaitsEndsRunAsStopped() throws Exception {
        Path config = config("sleep 100\n", 2);
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath(),
                "run", config.toString());
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("check-status").get("status").asText().equals("RUNNING"));
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);
        String id = runtime.get("experiment").get("id").asText();
        var stopped = runtime.request("DELETE", "experiment", null);
        assertEquals(stopped.body(), 200, stopped.statusCode());
        int exit = runtime.awaitExit(Duration.ofSeconds(60));
        String console = runtime.console();
        assertEquals(console, 3, exit);
        assertTrue(console, console.contains("experiment " + id + " STOPPED"));
        assertFalse(console, console.contains("no open experiment") || console.contains("SEVERE") || console.contains("\tat "));
    }

    /**
     * The id comes first; a kill -9 right after it lands while the experiment is created (or just
     * after): either way {@code resume} either runs it to its end or says it was never created and
     * removes its folder. Nothing is left half made.
     */
    @Test(timeout = 180_000)
    public void anExperimentKilledWhileBeingCreatedIsResumedOrCleanedUp() throws Exception {
        Path config = config("echo done\n", 2);
        Path experiments = folder.newFolder("experiments").toPath();
        Path home = folder.newFolder("home").toPath();
        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        Matcher[] announced = new Matcher[1];
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(5)).until(() -> {
            Matcher matcher = BEING_CREATED.matcher(runtime.console());
            announced[0] = matcher;
            return matcher.find();
        });
        runtime.kill9();
        String console = runtime.console();
        String id = announced[0].group(1);
        Path directory = Path.of(announced[0].group(2));
        assertEquals(experiments.resolve(id), directory);
        List<String> runLines = console.lines().filter(l -> l.startsWith("experiment ")).toList();
        assertTrue(console, runLines.get(0).matches(BEING_CREATED.pattern()));

        runtime = RuntimeProcess.start(home, experiments, "resume", id);
        int exit = runtime.awaitExit(Duration.ofSeconds(120));
        String resumed = runtime.console();
        if (exit == 0) {
            try (ExperimentStore store = ExperimentStore.openReadOnly(directory)) {
                List<TrialRecord> trials = store.trials();
                assertEquals(resumed, 2, trials.size());
                assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
            }
            System.out.println("killed while being created: resumed to DONE");
        } else {
            // killed before its folder was made, or after: no folder is left either way
            assertEquals(resumed, 1, exit);
            boolean begun = resumed.contains("interrupted while it was being created");
            assertTrue(resumed, (begun || resumed.contains("no experiment " + id)) && !resumed.contains("\tat "));
            assertFalse("its folder is removed", Files.exists(directory));
            System.out.println("killed while being created: " + (begun ? "its folder was removed" : "before its folder was made"));
        }
    }
}
