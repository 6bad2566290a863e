package nni.trialkeeper;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One trial on this worker: its directory prepared (code unpacked into {@code code/},
 * {@code parameter.cfg} written), its command run by bash in a process group of its own, its
 * stdout kept in {@code stdout} and scanned for metrics, {@code .nni/metrics} followed, and
 * {@code started}, {@code metric} and finally {@code ended} reports put in the spool in that order.
 */
final class TrialProcess {

    /** Where a trial's reports go, and what the keeper knows about the run. */
    interface Host {
        void report(Map<String, Object> report) throws IOException, InterruptedException;

        KeeperOptions options();

        ScheduledExecutorService timer();
    }

    private static final boolean HAS_SETSID = Files.isExecutable(Path.of("/usr/bin/setsid")) || Files.isExecutable(Path.of("/bin/setsid"));

    private final Host host;
    private final String trialId;
    private final long sequenceId;
    private final String gpuIndices;
    private final Path directory;
    private final CompletableFuture<Integer> ended = new CompletableFuture<>();
    private volatile Process process;
    private volatile boolean killed;

    TrialProcess(Host host, String trialId, long sequenceId, String gpuIndices, Path directory) {
        this.host = host;
        this.trialId = trialId;
        this.sequenceId = sequenceId;
        this.gpuIndices = gpuIndices;
        this.directory = directory;
    }

    String trialId() {
        return trialId;
    }

    Path directory() {
        return directory;
    }

    /** @return completes with the exit code once the {@code ended} report is in the spool */
    CompletableFuture<Integer> ended() {
        return ended;
    }

    /**
     * Prepares and starts the trial. If it cannot be prepared (for example an unsafe archive), an
     * {@code ended} report with code -1 and the reason is spooled instead.
     */
    void start(String parameterValue, int parameterIndex) throws InterruptedException, IOException {
        KeeperOptions options = host.options();
        Path code = directory.resolve("code");
        Path outputDirectory = options.runner() ? directory.resolve("nnioutput") : directory;
        try {
            Files.createDirectories(directory.resolve(".nni"));
            Files.createDirectories(outputDirectory);
            CodeArchive.extract(options.codeArchive(), code, options.codeLimits());
            writeParameters(parameterValue, parameterIndex);
            List<String> command = new ArrayList<>();
            if (HAS_SETSID) {
                command.add("setsid");
            }
            String trialCommand = gpuIndices == null ? options.command()
                    : "CUDA_VISIBLE_DEVICES=" + (gpuIndices.isEmpty() ? "-1" : gpuIndices) + " " + options.command();
            command.addAll(List.of("/bin/bash", "-c", trialCommand));
            ProcessBuilder builder = new ProcessBuilder(command).directory(code.toFile())
                    .redirectError(directory.resolve("stderr").toFile());
            Map<String, String> env = builder.environment();
            env.remove(KeeperOptions.TOKEN_VARIABLE);
            env.put("NNI_PLATFORM", options.platform());
            env.put("NNI_EXP_ID", options.experimentId());
            env.put("NNI_TRIAL_JOB_ID", trialId);
            env.put("NNI_SYS_DIR", directory.toString());
            env.put("NNI_OUTPUT_DIR", outputDirectory.toString());
            env.put("NNI_TRIAL_SEQ_ID", Long.toString(sequenceId));
            env.put("NNI_CODE_DIR", code.toString());
            env.put("MULTI_PHASE", Boolean.toString(options.runner()));
            if (options.runner()) {
                env.put("REUSE_MODE", "true");
            }
            process = builder.start();
        } catch (IOException | RuntimeException e) {
            // whatever went wrong, the manager hears of it: a trial never just vanishes
            String why = e.getMessage() != null ? e.getMessage() : e.toString();
            System.err.println("trial " + trialId + " could not start: " + why);
            host.report(ordered("kind", "ended", "trial", trialId, "code", -1L, "time", System.currentTimeMillis(),
                    "error", "the keeper could not start the trial: " + why));
            ended.complete(-1);
            return;
        }
        host.report(ordered("kind", "started", "trial", trialId, "time", System.currentTimeMillis(),
                "dir", directory.toString()));
        Metrics.FileTail metricsFile = new Metrics.FileTail(directory.resolve(".nni").resolve("metrics"));
        ScheduledFuture<?> following = host.timer().scheduleWithFixedDelay(() -> forwardFileMetrics(metricsFile),
                100, 100, TimeUnit.MILLISECONDS);
        Thread pump = new Thread(this::pumpStdout, "stdout-" + trialId);
        pump.start();
        process.onExit().thenRun(() -> {
            try {
                pump.join();
                following.cancel(false);
                forwardFileMetrics(metricsFile);
                int exitCode = process.exitValue();
                host.report(ordered("kind", "ended", "trial", trialId, "code", (long) exitCode,
                        "time", System.currentTimeMillis(), "killed", killed));
                ended.complete(exitCode);
            } catch (Exception e) {
                ended.completeExceptionally(e);
            }
        });
    }

    private void forwardFileMetrics(Metrics.FileTail tail) {
        synchronized (tail) {
            try {
                for (String metric : tail.read()) {
                    host.report(ordered("kind", "metric", "trial", trialId, "line", metric));
                }
            } catch (IOException e) {
                System.err.println("trial " + trialId + ": " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void pumpStdout() {
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
             Writer file = Files.newBufferedWriter(directory.resolve("stdout"), StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                file.write(line);
                file.write('\n');
                file.flush();
                String metric = Metrics.fromStdoutLine(line);
                if (metric != null) {
                    host.report(ordered("kind", "metric", "trial", trialId, "line", metric));
                }
            }
        } catch (IOException e) {
            System.err.println("trial " + trialId + ": reading its output failed: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Writes {@code parameter.cfg} (index 0) or {@code parameter_<k>.cfg} completely, then renames it in place. */
    void writeParameters(String value, int index) throws IOException {
        String name = index == 0 ? "parameter.cfg" : "parameter_" + index + ".cfg";
        Path temporary = directory.resolve(name + ".tmp");
        Files.writeString(temporary, value);
        Files.move(temporary, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** @return the last {@code maxBytes} of one of the trial's files, empty if it does not exist */
    String tail(String name, long maxBytes) throws IOException {
        if (!List.of("stdout", "stderr", "trial.log").contains(name)) {
            return "";
        }
        Path file = name.equals("trial.log") && host.options().runner() ? directory.resolve("nnioutput").resolve(name) : directory.resolve(name);
        if (!Files.exists(file)) {
            return "";
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long start = Math.max(0, in.length() - maxBytes);
            byte[] data = new byte[(int) (in.length() - start)];
            in.seek(start);
            in.readFully(data);
            return new String(data, StandardCharsets.UTF_8);
        }
    }

    /**
     * Kills the trial's process group: SIGTERM, then SIGKILL if it is still there after the grace
     * period. Returns at once.
     */
    void kill() {
        Process running = process;
        if (running == null || !running.isAlive()) {
            return;
        }
        killed = true;
        signalGroup(running, "TERM");
        running.onExit().orTimeout(host.options().killGraceSeconds(), TimeUnit.SECONDS).exceptionally(timeout -> {
            System.err.println("trial " + trialId + " did not end within " + host.options().killGraceSeconds()
                    + " s of SIGTERM; sending SIGKILL");
            signalGroup(running, "KILL");
            return null;
        });
    }

    /**
     * Kills the trial's process group and returns once it is gone: SIGTERM, up to the grace period
     * for the trial to end, then SIGKILL to whatever of the group is left.
     */
    void killAndWait() throws InterruptedException {
        Process running = process;
        if (running == null) {
            return;
        }
        killed = true;
        if (running.isAlive()) {
            signalGroup(running, "TERM");
            running.waitFor(host.options().killGraceSeconds(), TimeUnit.SECONDS);
        }
        signalGroup(running, "KILL"); // the group may outlive its leader
        running.waitFor(5, TimeUnit.SECONDS);
    }

    private static void signalGroup(Process running, String signal) {
        if (HAS_SETSID) {
            try {
                new ProcessBuilder("kill", "-" + signal, "--", "-" + running.pid()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start().waitFor(5, TimeUnit.SECONDS);
                return;
            } catch (IOException e) {
                System.err.println("kill -" + signal + " failed: " + e.getMessage() + "; signalling the process tree instead");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        List<ProcessHandle> tree = new ArrayList<>(running.descendants().toList());
        tree.add(running.toHandle());
        tree.forEach(signal.equals("KILL") ? ProcessHandle::destroyForcibly : ProcessHandle::destroy);
    }

    static Map<String, Object> ordered(Object... keysAndValues) {
        Map<String, Object> map = new LinkedHashMap<>();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            map.put((String) keysAndValues[i], keysAndValues[i + 1]);
        }
        return map;
    }
}
