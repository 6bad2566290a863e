package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.store.ExperimentStore;
import nni.store.TrialRecord;

/**
 * An experiment whose stored definition holds a value the config file's rules refuse (what an older
 * runtime stored from {@code nnictl update}: a search space bound of 1e309 kept as "Infinity"),
 * or one of the wrong type, resumed after a kill -9 while its trial runs: {@code resume} names the
 * field and what is wrong, and the trial is taken back and stopped with the experiment, never left
 * running unseen.
 */
public class BadStoredValueIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;
    private long trialPid = -1;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
        ProcessHandle.of(trialPid).ifPresent(ProcessHandle::destroyForcibly);
    }

    @Test(timeout = 600_000)
    public void resumeNamesTheBadStoredValueAndStopsTheTrialsItTookBack() throws Exception {
        resumeWithTheDefinitionEdited(definition -> definition.replace("\"_value\":[0,1]", "\"_value\":[\"Infinity\",\"Infinity\"]"),
                "searchSpace.x._value: expected numbers for uniform (low, high), got \"Infinity\"");
    }

    /** A value of the wrong type (a hand-edited store) is named the same way, not met as a ClassCastException. */
    @Test(timeout = 600_000)
    public void resumeNamesAStoredValueOfTheWrongTypeAndStopsTheTrialsItTookBack() throws Exception {
        resumeWithTheDefinitionEdited(definition -> definition.replace("\"trialConcurrency\":1", "\"trialConcurrency\":\"2\""),
                "trialConcurrency: expected a whole number, got \"2\"");
    }

    private void resumeWithTheDefinitionEdited(UnaryOperator<String> edit, String expectedProblem) throws Exception {
        Path pids = folder.newFolder("pids").toPath();
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), "echo $$ > " + pids + "/$NNI_TRIAL_JOB_ID\nexec sleep 600\n");
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner:
                  name: Random
                trainingService:
                  platform: local
                """);
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(home, experiments, "run", config.toString());
        await().atMost(Duration.ofSeconds(240)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);
        String id = runtime.get("experiment").get("id").asText();
        String trialId = runtime.get("trial-jobs?status=RUNNING").get(0).get("trialJobId").asText();
        Path pidFile = pids.resolve(trialId);
        await().atMost(Duration.ofSeconds(120)).until(() -> Files.exists(pidFile) && !Files.readString(pidFile).isBlank());
        trialPid = Long.parseLong(Files.readString(pidFile).strip());
        runtime.kill9();
        assertTrue("the trial outlives the runtime", ProcessHandle.of(trialPid).map(ProcessHandle::isAlive).orElse(false));

        // the store written directly, as the old update stored the finding's values
        try (ExperimentStore store = ExperimentStore.open(experiments.resolve(id))) {
            String definition = store.definition().orElseThrow();
            String bad = edit.apply(definition);
            assertNotEquals(definition, bad);
            store.saveDefinition(bad);
        }

        runtime = RuntimeProcess.start(home, experiments, "resume", id);
        int exit = runtime.awaitExit(Duration.ofSeconds(240));
        String console = runtime.console();
        assertEquals(console, 1, exit);
        // the trial was taken back and ended with the experiment, not left running unseen
        await().atMost(Duration.ofSeconds(30)).until(() -> ProcessHandle.of(trialPid).map(p -> !p.isAlive()).orElse(true));
        assertTrue(console, console.contains(expectedProblem));
        assertFalse(console, console.contains("\tat "));
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiments.resolve(id))) {
            Optional<TrialRecord> trial = store.trial(trialId);
            assertTrue(trial.isPresent());
            assertEquals(trial.get().toString(), "USER_CANCELED", trial.get().status());
        }
    }
}
