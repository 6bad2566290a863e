package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * Issue 25 item 6, as the user met it: a seeded Random tuner, the runtime killed, {@code resume}.
 * The new tuner draws the seed's sequence again; the parameters the experiment already has are not
 * run a second time, and {@code resume} counts the trials that existed, not those it then added.
 */
public class ResumeHistoryIT {

    private static final Pattern STARTED = Pattern.compile("experiment (\\w{8}) started in (\\S+)");

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test(timeout = 300_000)
    public void aResumedSeededRandomTunerRunsNoParameterTwiceAndTheCountIsOfTheTrialsThatExisted() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Path release = code.resolve("release");
        Files.writeString(code.resolve("trial.py"), """
                import os, time
                import nni
                x = nni.get_next_parameter()['x']
                while nni.get_sequence_id() == 1 and not os.path.exists('%s'):
                    time.sleep(0.1)
                nni.report_final_result(x)
                """.formatted(release));
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 5
                tuner:
                  name: Random
                  classArgs: {seed: 7}
                trainingService:
                  platform: local
                """);
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(Map.of(), home, experiments, "run", config.toString());
        // three points: trials 0 and 2 succeeded, trial 1 waits for the release file, the tuner has no more (a
        // slot is free, nothing changes): then the runtime is killed
        await().atMost(Duration.ofSeconds(120)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=SUCCEEDED").size() == 2
                && runtime.get("trial-jobs?status=RUNNING").size() == 1
                && runtime.get("check-status").get("status").asText().equals("TUNER_NO_MORE_TRIAL"));
        Matcher started = STARTED.matcher(runtime.console());
        assertTrue(runtime.console(), started.find());
        Path experiment = Path.of(started.group(2));
        runtime.kill9();

        runtime = RuntimeProcess.start(Map.of(), home, experiments, "resume", started.group(1));
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.console().contains("trials so far"));
        Files.writeString(release, "");
        runtime.assertExit(0, Duration.ofSeconds(120));
        // the new tuner drew the seed's three points again: none became a trial, so none was counted either
        assertTrue(runtime.console(), runtime.console().contains("resumed with 3 trials so far"));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(trials.toString(), 3, trials.size());
            List<String> parameters = trials.stream().map(t -> t.parameters().replaceAll(".*\"parameters\": *(\\{[^}]*}).*", "$1"))
                    .toList();
            assertEquals("a parameter set ran twice: " + parameters, 3, parameters.stream().distinct().count());
            assertTrue(trials.toString(), trials.stream().allMatch(t -> t.status().equals("SUCCEEDED")));
        }
    }
}
