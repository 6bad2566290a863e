package nni.ts.local.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * One experiment's trials on this machine: each trial is a shell process started in the code
 * directory with NNI's environment, its end observed through {@link ProcessHandle#onExit()}.
 */
final class LocalSession implements TrainingSession {

    private static final Logger LOG = LoggerFactory.getLogger(LocalSession.class);

    private final SessionContext context;
    private final String shell;
    private final int graceSeconds;
    private final Map<String, TrialJob> trials = new ConcurrentHashMap<>();
    private final Map<String, Process> processes = new ConcurrentHashMap<>();
    private final Map<String, Boolean> cancelRequests = new ConcurrentHashMap<>();
    private final List<String> order = new java.util.concurrent.CopyOnWriteArrayList<>();

    LocalSession(SessionContext context, String shell, int graceSeconds) {
        this.context = context;
        this.shell = shell;
        this.graceSeconds = graceSeconds;
    }

    @Override
    public TrialJob submit(TrialApplication application) throws PlatformException {
        Path dir = context.experimentDirectory().resolve("trials").resolve(application.trialId());
        TrialJob waiting = TrialJob.waiting(application, dir.toString(), "file://localhost" + dir);
        trials.put(waiting.id(), waiting);
        order.add(waiting.id());
        try {
            Files.createDirectories(dir.resolve(".nni"));
            Path parameters = dir.resolve(application.hyperParameters().fileName());
            Path temporary = dir.resolve(parameters.getFileName() + ".tmp");
            Files.writeString(temporary, application.hyperParameters().value());
            Files.move(temporary, parameters, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            ProcessBuilder builder = new ProcessBuilder(shell, "-c", String.valueOf(context.section().get("trialCommand")))
                    .directory(codeDirectory().toFile())
                    .redirectOutput(dir.resolve("stdout").toFile())
                    .redirectError(dir.resolve("stderr").toFile());
            Map<String, String> env = builder.environment();
            env.put("NNI_PLATFORM", "local");
            env.put("NNI_EXP_ID", context.experimentId());
            env.put("NNI_TRIAL_JOB_ID", application.trialId());
            env.put("NNI_SYS_DIR", dir.toString());
            env.put("NNI_OUTPUT_DIR", dir.toString());
            env.put("NNI_TRIAL_SEQ_ID", Long.toString(application.sequenceId()));
            env.put("MULTI_PHASE", "false");
            env.put("NNI_CODE_DIR", codeDirectory().toString());
            Process process = builder.start();
            processes.put(waiting.id(), process);
            TrialJob running = waiting.running(Instant.now());
            trials.put(running.id(), running);
            context.trialChanged(running);
            process.onExit().thenAccept(done -> ended(running.id(), done.exitValue()));
            return running;
        } catch (IOException e) {
            trials.remove(waiting.id());
            order.remove(waiting.id());
            throw new PlatformException("cannot start trial " + application.trialId() + ": " + e.getMessage(), e);
        }
    }

    private Path codeDirectory() {
        Object dir = context.section().get("trialCodeDirectory");
        return Path.of(dir == null ? "." : dir.toString()).toAbsolutePath();
    }

    private void ended(String trialId, int exitCode) {
        processes.remove(trialId);
        Boolean earlyStopped = cancelRequests.remove(trialId);
        TrialStatus status = earlyStopped != null ? TrialStatus.cancelled(earlyStopped)
                : exitCode == 0 ? TrialStatus.SUCCEEDED : TrialStatus.FAILED;
        TrialJob ended = trials.computeIfPresent(trialId,
                (id, trial) -> trial.ended(status, Instant.now(), "exit code " + exitCode));
        if (ended != null) {
            context.trialChanged(ended);
        }
    }

    @Override
    public void cancel(String trialId, boolean earlyStopped) {
        Process process = processes.get(trialId);
        if (process == null) {
            return;
        }
        cancelRequests.put(trialId, earlyStopped);
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        process.onExit().orTimeout(graceSeconds, TimeUnit.SECONDS).exceptionally(timeout -> {
            LOG.warn("trial {} did not end within {} s of SIGTERM; killing it", trialId, graceSeconds);
            tree.forEach(ProcessHandle::destroyForcibly);
            return null;
        });
    }

    @Override
    public Optional<TrialJob> trial(String trialId) {
        return Optional.ofNullable(trials.get(trialId));
    }

    @Override
    public List<TrialJob> trials() {
        return order.stream().map(trials::get).toList();
    }

    @Override
    public Optional<InputStream> openTrialFile(String trialId, String name) throws IOException {
        TrialJob trial = trials.get(trialId);
        if (trial == null || !List.of("stdout", "stderr", "trial.log").contains(name)) {
            return Optional.empty();
        }
        Path file = Path.of(trial.workingDirectory(), name);
        return Files.exists(file) ? Optional.of(Files.newInputStream(file)) : Optional.empty();
    }

    @Override
    public void close() {
        processes.keySet().forEach(id -> cancel(id, false));
    }
}
