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
import java.util.concurrent.TimeUnit;

import nni.api.model.TrialStatus;
import nni.api.tuner.Tuner;
import nni.config.AlgorithmConfig;
import nni.config.ExperimentConfig;
import nni.ts.local.internal.LocalPlatform;

/**
 * How much time the runtime itself spends per trial: experiments of trivial trials (a bash
 * command that writes one FINAL metric in NNI's file protocol and exits) on the real local
 * platform with the real SQLite store, at concurrency 1, 2 and 8.
 *
 * <p>Per-trial overhead = the trial's time from submission to its terminal status being stored,
 * minus nothing: the trial does no work, so all of it is orchestration (tuner call, store writes,
 * directory and {@code parameter.cfg}, process start through setsid and bash, exit event, metric
 * drain). Run: {@code mvn -B -q -o verify -pl nni.bench -am -Pbench} (or with
 * {@code -Dbench.trials=2000}).
 */
public final class OrchestrationBenchmark {

    private static final String TRIVIAL_TRIAL = "m='{\"parameter_id\": 0, \"trial_job_id\": \"'$NNI_TRIAL_JOB_ID'\", "
            + "\"type\": \"FINAL\", \"sequence\": 0, \"value\": \"1.0\"}'$'\\n'; "
            + "printf 'ME%06d%s' ${#m} \"$m\" >> \"$NNI_SYS_DIR/.nni/metrics\"";

    private OrchestrationBenchmark() {
    }

    public static void main(String[] args) throws Exception {
        int trials = args.length > 0 ? Integer.parseInt(args[0]) : 500;
        Path root = Files.createTempDirectory("nni-bench");
        Path code = Files.createDirectories(root.resolve("code"));
        System.out.printf("nni-osgi orchestration benchmark: %d trivial trials per run, %d cores, Java %s%n",
                trials, Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        run(root, code, "warmup", 1, Math.min(100, trials), false);
        System.out.printf("%-12s %8s %10s %10s %10s %10s %12s%n", "concurrency", "trials", "median ms", "p90 ms",
                "max ms", "trials/s", "wall s");
        for (int concurrency : new int[] {1, 2, 8}) {
            run(root, code, "c" + concurrency, concurrency, trials, true);
        }
        System.out.printf("runtime RSS: %s now, %s peak (this JVM: engine + local platform + SQLite)%n",
                status("VmRSS"), status("VmHWM"));
        double floor = processFloor(root, Math.min(trials, 300));
        System.out.printf("floor: starting and reaping the trial's processes alone (setsid bash run.sh, no runtime) "
                + "takes %.2f ms median here; load average %s%n", floor,
                Files.readString(Path.of("/proc/loadavg")).split(" ")[0]);
        System.exit(0);
    }

    private static void run(Path root, Path code, String id, int concurrency, int trials, boolean print) throws Exception {
        ExperimentConfig config = new ExperimentConfig("bench", Map.of(), TRIVIAL_TRIAL, code, concurrency, null, null,
                trials, null, null, false, "warning", root, new AlgorithmConfig("Counter", null, null, Map.of()), null,
                List.of(Map.of("platform", "local", "trialCommand", TRIVIAL_TRIAL, "trialCodeDirectory", code.toString())),
                Map.of(), List.of());
        Experiment experiment = Experiment.create(id, config);
        LocalPlatform platform = new LocalPlatform(platformConfig());
        long start = System.nanoTime();
        experiment.start(JavaRuns.of(experiment, new CounterTuner(), null), platform::open);
        ExperimentStatus end = experiment.settled().get(30, TimeUnit.MINUTES);
        double wall = (System.nanoTime() - start) / 1e9;
        List<TrialView> views = experiment.trials();
        experiment.stop(Duration.ofSeconds(10));
        if (end != ExperimentStatus.DONE || views.stream().anyMatch(t -> t.job().status() != TrialStatus.SUCCEEDED
                || t.finalValue() == null)) {
            throw new IllegalStateException(id + " did not run every trial to SUCCEEDED with its metric: " + end);
        }
        List<Double> overheads = new ArrayList<>();
        List<Double> starting = new ArrayList<>();
        List<Double> running = new ArrayList<>();
        for (TrialView view : views) {
            overheads.add(Duration.between(view.job().submitTime(), view.job().endTime()).toNanos() / 1e6);
            starting.add(Duration.between(view.job().submitTime(), view.job().startTime()).toNanos() / 1e6);
            running.add(Duration.between(view.job().startTime(), view.job().endTime()).toNanos() / 1e6);
        }
        overheads.sort(Comparator.naturalOrder());
        if (print) {
            System.out.printf("%-12d %8d %10.2f %10.2f %10.2f %10.1f %12.2f   (median: submit->started %.2f ms, "
                            + "started->ended %.2f ms)%n", concurrency, trials,
                    overheads.get(overheads.size() / 2), overheads.get((int) (overheads.size() * 0.9)),
                    overheads.get(overheads.size() - 1), trials / wall, wall, median(starting), median(running));
        }
    }

    /** @return the median time to start and reap {@code setsid bash <script>} whose command is {@code true} */
    private static double processFloor(Path root, int count) throws Exception {
        Path script = root.resolve("floor.sh");
        Files.writeString(script, "#!/bin/bash\ntrap 'wait; exit 143' TERM INT\ncd " + root + " || exit 127\n"
                + "eval 'true'\ncode=$?\necho \"$code\" > " + root.resolve("floor.state") + "\nexit $code\n");
        List<Double> times = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            long start = System.nanoTime();
            Process process = new ProcessBuilder("setsid", "/bin/bash", script.toString())
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectErrorStream(true).start();
            process.waitFor();
            times.add((System.nanoTime() - start) / 1e6);
        }
        return median(times);
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Comparator.naturalOrder());
        return sorted.get(sorted.size() / 2);
    }

    private static String status(String field) throws Exception {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith(field + ":"))
                .map(l -> l.substring(field.length() + 1).trim()).findFirst().orElse("?");
    }

    private static LocalPlatform.Config platformConfig() {
        return (LocalPlatform.Config) Proxy.newProxyInstance(OrchestrationBenchmark.class.getClassLoader(),
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
