package nni.itest.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.TrialRecord;

/**
 * A local experiment in reuse mode, end to end: {@code java -jar nni-osgi.jar run config.yml} with
 * {@code reuseMode: true}; the trials (unmodified NNI trial code on the shipped SDK) run in keeper
 * environments, and every metric ends up in the experiment's SQLite store once.
 */
public class ReuseModeIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stopRuntime() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    static final String TRIAL = """
            import nni
            params = nni.get_next_parameter()
            for step in range(25):
                nni.report_intermediate_result(params['x'] + step)
            nni.report_final_result(params['x'] * 2)
            """;

    @Test(timeout = 180_000)
    public void aLocalExperimentInReuseModeRunsThroughKeeperEnvironmentsAndStoresEveryMetricOnce() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), TRIAL);
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x:
                    _type: randint
                    _value: [0, 1000]
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 6
                tuner:
                  name: Random
                trainingService:
                  platform: local
                  reuseMode: true
                """);
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), experiments, "run", config.toString());
        int exit = runtime.awaitExit(Duration.ofSeconds(150));
        assertEquals(runtime.console(), 0, exit);

        java.util.regex.Matcher started = java.util.regex.Pattern.compile("experiment \\w+ started in (\\S+)").matcher(runtime.console());
        assertTrue(runtime.console(), started.find());
        Path experiment = Path.of(started.group(1));
        Path environments = experiment.resolve("environments");
        List<Path> environmentDirectories;
        try (Stream<Path> all = Files.list(environments)) {
            environmentDirectories = all.filter(Files::isDirectory).toList();
        }
        // reuse: at most as many environments as trials run at once, each ran several trials
        assertTrue(environmentDirectories.toString(), !environmentDirectories.isEmpty() && environmentDirectories.size() <= 2);
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<TrialRecord> trials = store.trials();
            assertEquals(6, trials.size());
            Set<String> ranInEnvironments = new TreeSet<>();
            for (Path environment : environmentDirectories) {
                try (Stream<Path> ran = Files.list(environment.resolve("trials"))) {
                    ran.map(p -> p.getFileName().toString()).forEach(ranInEnvironments::add);
                }
            }
            assertEquals(trials.stream().map(TrialRecord::id).collect(Collectors.toCollection(TreeSet::new)), ranInEnvironments);
            for (TrialRecord trial : trials) {
                assertEquals(trial.id(), "SUCCEEDED", trial.status());
                List<MetricRecord> periodical = store.metrics(trial.id(), "PERIODICAL");
                assertEquals(trial.id(), 25, periodical.size());
                assertEquals(25, periodical.stream().map(MetricRecord::sequence).distinct().count());
                assertEquals(trial.id(), 1, store.metrics(trial.id(), "FINAL").size());
            }
            assertEquals(6 * 26, store.metrics(null, null).size());
        }
        assertTrue(runtime.console(), runtime.console().contains("DONE") || runtime.console().contains("done"));
    }

    /**
     * The port bound to another loopback address (issue 26 item 5): the keepers are told to call
     * the manager where it listens (127.0.0.2), not at 127.0.0.1 where nothing does, and the trials
     * run. Before, they waited "starting a local keeper" for ever.
     */
    @Test(timeout = 240_000)
    public void keepersCallTheManagerBackAtTheAddressItsPortIsBoundTo() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), TRIAL);
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x:
                    _type: randint
                    _value: [0, 1000]
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 2
                tuner:
                  name: Random
                trainingService:
                  platform: local
                  reuseMode: true
                """);
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(java.util.Map.of(), "127.0.0.2", 0, folder.newFolder("home").toPath(), experiments,
                "run", config.toString());
        int exit = runtime.awaitExit(Duration.ofSeconds(200));
        assertEquals(runtime.console(), 0, exit);
        assertTrue(runtime.log(), runtime.log().contains("keepers call the manager back at http://127.0.0.2:"));
    }
}
