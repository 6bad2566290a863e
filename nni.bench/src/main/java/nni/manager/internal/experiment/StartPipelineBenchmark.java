package nni.manager.internal.experiment;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import nni.api.model.TrialStatus;
import nni.api.tuner.Tuner;
import nni.config.AlgorithmConfig;
import nni.config.ExperimentConfig;
import nni.ts.local.internal.LocalPlatform;

/**
 * How fast local trials are started and how closely the experiment's trial states (what REST and
 * the web UI show) follow the trials' processes (issue 26 item 7), through the real engine, local
 * platform and SQLite store:
 * <ol>
 * <li>N trials of {@code sleep 20} at concurrency N (1,000 by default): the time from the
 *     experiment's start until every trial was shown RUNNING, the most shown RUNNING at once, and
 *     the lag of each trial's end as shown behind its process's exit (the trial writes the time
 *     just before it exits), with the most trials shown RUNNING that had already exited;</li>
 * <li>200 short trials ({@code sleep 0.5}) at concurrency 8: how many of the 8 slots were busy
 *     on average, from the trials' own start and exit times (NNI 3.0 fills 8).</li>
 * </ol>
 * What the experiment shows is recorded by its listener, told on the experiment's thread right
 * after each change of its read model. Prints the figures with the load average. Run:
 * {@code mvn -B -q verify -pl nni.bench -am -Pbench -DskipTests -DskipITs
 * -Dbench.main=nni.manager.internal.experiment.StartPipelineBenchmark -Dbench.trials=1000}.
 */
public final class StartPipelineBenchmark {

    private StartPipelineBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        Path root = Files.createTempDirectory("nni-bench-starts");
        try {
            System.out.printf("nni-osgi start pipeline benchmark: %d cores, Java %s, load average %s%n",
                    Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"), load());
            sleepers(root, trials);
            shortTrials(root, 200, 8);
        } finally {
            new ProcessBuilder("rm", "-rf", root.toString()).start().waitFor();
        }
        System.exit(0);
    }

    /** N {@code sleep 20} trials at concurrency N. */
    private static void sleepers(Path root, int trials) throws Exception {
        String command = "sleep 20 && date +%s%N > \"$NNI_SYS_DIR/exited\"";
        Recorder shown = new Recorder();
        String before = load();
        long start = System.currentTimeMillis();
        Experiment experiment = run(root, "sleepers", command, trials, trials, shown);
        ExperimentStatus end = experiment.settled().get(30, TimeUnit.MINUTES);
        String after = load();
        List<TrialView> views = experiment.trials();
        experiment.stop(Duration.ofSeconds(10));
        check(end, views, "sleepers");

        long allRunning = views.stream().mapToLong(view -> shown.running.get(view.job().id())).max().orElseThrow() - start;
        long allStarted = 0; // from the processes' own start times, as the session recorded them in .nni/pid
        for (TrialView view : views) {
            String pid = Files.readString(experiment.directory().resolve("trials").resolve(view.job().id()).resolve(".nni")
                    .resolve("pid")).trim();
            allStarted = Math.max(allStarted, Long.parseLong(pid.split("\\s+")[1]) - start);
        }
        List<long[]> events = new ArrayList<>(); // time, +1 shown RUNNING / -1 shown ended / +1000000 exited-but-shown-running
        List<Double> lags = new ArrayList<>();
        List<Double> runtimeLags = new ArrayList<>();
        for (TrialView view : views) {
            String id = view.job().id();
            Path directory = experiment.directory().resolve("trials").resolve(id);
            long exited = Long.parseLong(Files.readString(directory.resolve("exited")).trim()) / 1_000_000;
            long ended = shown.ended.get(id);
            lags.add((double) (ended - exited));
            // the exit status file's content was written then (the launch script renames it into place)
            runtimeLags.add((double) (ended - Files.getLastModifiedTime(directory.resolve(".nni").resolve("state")).toMillis()));
            events.add(new long[] {shown.running.get(id), 1, 0});
            events.add(new long[] {ended, -1, 0});
            if (ended > exited) {
                events.add(new long[] {exited, 0, 1});
                events.add(new long[] {ended, 0, -1});
            }
        }
        events.sort(Comparator.<long[]>comparingLong(e -> e[0]).thenComparingLong(e -> e[1] + e[2]));
        long running = 0;
        long stale = 0;
        long mostRunning = 0;
        long mostStale = 0;
        for (long[] event : events) {
            running += event[1];
            stale += event[2];
            mostRunning = Math.max(mostRunning, running);
            mostStale = Math.max(mostStale, stale);
        }
        System.out.printf("%d x `sleep 20` at concurrency %d: every process started %.2f s after the start, all shown RUNNING "
                        + "%.2f s after it, at most %d RUNNING at "
                        + "once; end shown after the process exited: median %.0f ms, p90 %.0f ms, max %.0f ms (after its exit "
                        + "status was written: median %.0f ms, p90 %.0f ms, max %.0f ms); at most %d exited trials shown "
                        + "RUNNING at once; load average %s -> %s%n",
                trials, trials, allStarted / 1000.0, allRunning / 1000.0, mostRunning, percentile(lags, 0.5), percentile(lags, 0.9),
                percentile(lags, 1.0), percentile(runtimeLags, 0.5), percentile(runtimeLags, 0.9), percentile(runtimeLags, 1.0),
                mostStale, before, after);
    }

    /** Short trials at a small concurrency: how many slots the processes kept busy. */
    private static void shortTrials(Path root, int trials, int concurrency) throws Exception {
        String command = "date +%s%N > \"$NNI_SYS_DIR/began\" && sleep 0.5 && date +%s%N > \"$NNI_SYS_DIR/exited\"";
        String before = load();
        Experiment experiment = run(root, "short", command, concurrency, trials, new Recorder());
        ExperimentStatus end = experiment.settled().get(30, TimeUnit.MINUTES);
        String after = load();
        List<TrialView> views = experiment.trials();
        experiment.stop(Duration.ofSeconds(10));
        check(end, views, "short");
        long first = Long.MAX_VALUE;
        long last = 0;
        double busy = 0;
        for (TrialView view : views) {
            Path directory = experiment.directory().resolve("trials").resolve(view.job().id());
            long began = Long.parseLong(Files.readString(directory.resolve("began")).trim());
            long exited = Long.parseLong(Files.readString(directory.resolve("exited")).trim());
            first = Math.min(first, began);
            last = Math.max(last, exited);
            busy += exited - began;
        }
        System.out.printf("%d x `sleep 0.5` at concurrency %d: %.2f slots busy on average (trials' own start to exit, "
                + "first start to last exit %.1f s); load average %s -> %s%n", trials, concurrency, busy / (last - first),
                (last - first) / 1e9, before, after);
    }

    private static Experiment run(Path root, String id, String command, int concurrency, int trials, Recorder recorder)
            throws Exception {
        Path code = Files.createDirectories(root.resolve("code"));
        ExperimentConfig config = new ExperimentConfig("bench", Map.of(), command, code, concurrency, null, null,
                trials, null, null, false, "warning", root, new AlgorithmConfig("Counter", null, null, Map.of()), null,
                List.of(Map.of("platform", "local", "trialCommand", command, "trialCodeDirectory", code.toString())),
                Map.of(), List.of());
        Experiment experiment = Experiment.create(id, config);
        experiment.listen(recorder);
        LocalPlatform platform = new LocalPlatform(platformConfig());
        experiment.start(JavaRuns.of(experiment, new CounterTuner(), null), platform::open);
        return experiment;
    }

    private static void check(ExperimentStatus end, List<TrialView> views, String what) {
        if (end != ExperimentStatus.DONE || views.stream().anyMatch(t -> t.job().status() != TrialStatus.SUCCEEDED)) {
            throw new IllegalStateException(what + " did not run every trial to SUCCEEDED: " + end + ", "
                    + views.stream().filter(t -> t.job().status() != TrialStatus.SUCCEEDED).findFirst().map(TrialView::job));
        }
    }

    /** When each trial was first shown RUNNING and shown ended (epoch ms), told right after the read model changed. */
    private static final class Recorder implements ExperimentManager.Listener {
        final Map<String, Long> running = new ConcurrentHashMap<>();
        final Map<String, Long> ended = new ConcurrentHashMap<>();

        @Override
        public void trialChanged(Experiment experiment, String trialId) {
            long now = System.currentTimeMillis();
            experiment.trial(trialId).ifPresent(view -> {
                if (view.job().status() == TrialStatus.RUNNING) {
                    running.putIfAbsent(trialId, now);
                } else if (view.job().status().isTerminal()) {
                    running.putIfAbsent(trialId, now);
                    ended.putIfAbsent(trialId, now);
                }
            });
        }

        @Override
        public void opened(Experiment experiment) {
        }

        @Override
        public void changed(Experiment experiment) {
        }

        @Override
        public void closed(Experiment experiment, boolean stopped) {
        }
    }

    private static double percentile(List<Double> values, double fraction) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        return sorted.get(Math.min(sorted.size() - 1, (int) (sorted.size() * fraction)));
    }

    private static String load() throws Exception {
        return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
    }

    private static LocalPlatform.Config platformConfig() {
        return (LocalPlatform.Config) Proxy.newProxyInstance(StartPipelineBenchmark.class.getClassLoader(),
                new Class<?>[] {LocalPlatform.Config.class}, (proxy, method, arguments) -> switch (method.getName()) {
                    case "python_sdk" -> "never";
                    case "annotationType" -> LocalPlatform.Config.class;
                    case "hashCode" -> 0;
                    case "toString" -> "bench";
                    default -> method.getDefaultValue();
                });
    }

    /** Parameters {"i": k}; the benchmark measures the runtime, not an algorithm. */
    private static final class CounterTuner implements Tuner {
        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            return Optional.of(Map.of("i", parameterId));
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
        }
    }
}
