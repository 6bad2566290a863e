package nni.ui.internal.api;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.function.Supplier;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.HeldSession;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.experiment.TrialSummary;

/**
 * The UI's routes on a large experiment: 10,000 trials with 100 intermediate results each (a million
 * metrics, stored in SQLite through the experiment as a platform reports them). Prints how long each
 * answer takes to compute and how large it is as JSON. Not part of {@code mvn verify} (surefire runs
 * {@code *Test}); run it with
 *
 * <pre>
 * mvn -B -o verify -pl nni.ui -am -Dtest=UiReadModelBenchmark -Dsurefire.failIfNoSpecifiedTests=false -DskipITs [-Dbench.trials=10000 -Dbench.metrics=100]
 * </pre>
 */
public class UiReadModelBenchmark {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private HeldSession session;

    @Test(timeout = 1_800_000)
    public void routesOnALargeExperiment() throws Exception {
        int trials = Integer.getInteger("bench.trials", 10_000);
        int metrics = Integer.getInteger("bench.metrics", 100);
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("work").toPath());
        setup.concurrency = trials;
        setup.maxTrials = trials;
        long start = System.nanoTime();
        Experiment experiment = setup.startWith("uibench1", new ListTuner(trials), e -> session = new HeldSession(e));
        nni.api.experiment.ExperimentReading reading = nni.manager.internal.service.Readings.ofOpen(experiment);
        try {
            await().atMost(Duration.ofMinutes(5)).until(() -> experiment.summaries().size() == trials);
            for (TrialSummary trial : experiment.summaries()) {
                List<Double> intermediate = new ArrayList<>(metrics);
                for (int i = 0; i < metrics; i++) {
                    intermediate.add(Math.sin(trial.sequenceId() + i / 10.0));
                }
                session.finish(trial.job().id(), intermediate, Math.cos(trial.sequenceId() / 100.0), TrialStatus.SUCCEEDED);
            }
            await().atMost(Duration.ofMinutes(10)).until(() -> experiment.summaries().stream().allMatch(t -> t.finalValue() != null));
            System.out.printf("UiReadModelBenchmark: %,d trials, %,d metrics stored in %.1f s%n", trials, (long) trials * (metrics + 1),
                    (System.nanoTime() - start) / 1e9);
            String someTrial = experiment.summaries().get(trials / 2).job().id();
            measure("trial table page (50 rows, sorted by default metric)", () -> TrialTable.page(reading,
                    new TrialTable.Query(100, 50, "default", true, EnumSet.noneOf(TrialStatus.class), null)));
            measure("trial table page (search x=77)", () -> TrialTable.page(reading,
                    new TrialTable.Query(0, 50, "sequence", false, EnumSet.noneOf(TrialStatus.class), "x=77")));
            measure("overview", () -> ExperimentOverview.of(reading, true, experiment.status().name()));
            measure("default metric (2,000 points of " + trials + ")", () -> MetricCharts.finalResults(reading, 2000));
            measure("parallel coordinates (" + trials + " rows)", () -> MetricCharts.parallel(reading));
            measure("trial detail (" + metrics + " intermediate results)", () -> TrialDetail.of(reading, someTrial, 2000));
        } finally {
            experiment.stop(Duration.ofSeconds(30));
        }
    }

    private static void measure(String name, Supplier<Object> route) {
        long[] millis = new long[7];
        int bytes = 0;
        for (int i = 0; i < millis.length; i++) {
            long start = System.nanoTime();
            bytes = Json.write(route.get()).length();
            millis[i] = (System.nanoTime() - start) / 1_000_000;
        }
        Arrays.sort(millis);
        System.out.printf("UiReadModelBenchmark: %-55s median %4d ms, max %4d ms, %,9d bytes of JSON%n", name, millis[3],
                millis[millis.length - 1], bytes);
    }
}
