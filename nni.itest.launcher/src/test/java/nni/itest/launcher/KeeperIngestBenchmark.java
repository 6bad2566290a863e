package nni.itest.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.store.ExperimentStore;
import nni.store.MetricRecord;

/**
 * Metric ingestion end to end: the runnable jar runs a local experiment in reuse mode with N
 * trials at once, each printing M metrics as fast as it can; N real keepers forward them in
 * batches to the shared endpoint, into the experiment's SQLite store. Prints the store's ingestion
 * rate (metrics over the span of their store timestamps) and the keepers' batch request latencies.
 * Not part of {@code mvn verify}; run it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.itest.launcher -am -Dit.test=KeeperIngestBenchmark -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false [-Dbench.keepers=4 -Dbench.metrics=50000]
 * </pre>
 */
public class KeeperIngestBenchmark {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stopRuntime() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test(timeout = 900_000)
    public void ingestion() throws Exception {
        int keepers = Integer.getInteger("bench.keepers", 4);
        int metrics = Integer.getInteger("bench.metrics", 50_000);
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), """
                awk -v n=%d -v id="$NNI_TRIAL_JOB_ID" 'BEGIN { for (i = 0; i < n; i++) \
                  printf "NNISDK_MEb\\047{\\"parameter_id\\": 0, \\"trial_job_id\\": \\"%%s\\", \\"type\\": \\"PERIODICAL\\", \\"sequence\\": %%d, \\"value\\": \\"%%d\\"}\\047\\n", id, i, i;
                  printf "NNISDK_MEb\\047{\\"parameter_id\\": 0, \\"trial_job_id\\": \\"%%s\\", \\"type\\": \\"FINAL\\", \\"sequence\\": 0, \\"value\\": \\"1\\"}\\047\\n", id }'
                """.formatted(metrics));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                searchSpace:
                  x: {_type: randint, _value: [0, 1000]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: %d
                maxTrialNumber: %d
                tuner:
                  name: Random
                trainingService:
                  platform: local
                  reuseMode: true
                """.formatted(keepers, keepers));
        runtime = RuntimeProcess.start(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath(), "run", config.toString());
        int exit = runtime.awaitExit(Duration.ofMinutes(14));
        assertEquals(runtime.console(), 0, exit);
        Matcher started = Pattern.compile("experiment \\w+ started in (\\S+)").matcher(runtime.console());
        assertTrue(runtime.console(), started.find());
        Path experiment = Path.of(started.group(1));

        long expected = (long) keepers * (metrics + 1);
        LongSummaryStatistics times;
        try (ExperimentStore store = ExperimentStore.openReadOnly(experiment)) {
            List<MetricRecord> all = store.metrics(null, null);
            assertEquals("every metric stored", expected, all.size());
            assertEquals("every metric stored once", expected,
                    all.stream().map(m -> m.trialJobId() + "/" + m.type() + "/" + m.sequence()).distinct().count());
            times = all.stream().mapToLong(MetricRecord::timestamp).summaryStatistics();
        }
        double seconds = Math.max(1, times.getMax() - times.getMin()) / 1000.0;
        List<String> keeperLines = new ArrayList<>();
        try (Stream<Path> environments = Files.list(experiment.resolve("environments"))) {
            for (Path environment : environments.filter(Files::isDirectory).toList()) {
                Files.readAllLines(environment.resolve("keeper.stderr")).stream().filter(l -> l.startsWith("report batches:"))
                        .forEach(l -> keeperLines.add(environment.getFileName() + ": " + l));
            }
        }
        String figures = String.format("keeper ingest: %d keepers x %d metrics = %d metrics stored in SQLite over %.2f s: %.0f metrics/s%n%s%n",
                keepers, metrics + 1, expected, seconds, expected / seconds, String.join("\n", keeperLines));
        System.out.print(figures);
        Files.writeString(Path.of(System.getProperty("nni.root"), "nni.itest.launcher", "target", "keeper-ingest-benchmark.txt"), figures,
                StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    }
}
