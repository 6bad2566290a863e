package nni.manager.internal.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import nni.api.experiment.ExperimentService;
import nni.api.platform.TrainingSession;

/**
 * A trial's output files ({@code stdout}, {@code stderr}, {@code trial.log}) as {@code nni:log} and
 * the web UI show them: from the platform while the experiment has a session (the file may be on
 * another machine), else from the trial's folder under the experiment.
 */
public final class TrialFiles {

    /** The files a trial has: the exported API names them, so faces and engine agree. */
    public static final List<String> NAMES = ExperimentService.TRIAL_FILES;

    private TrialFiles() {
    }

    /**
     * @return the file, open for reading; empty when the trial has no such file (yet)
     * @throws IllegalArgumentException when {@code name} is not one of {@link #NAMES}
     * @throws IOException              when the file exists but cannot be read
     */
    public static Optional<InputStream> open(Experiment experiment, String trialId, String name) throws IOException {
        if (!NAMES.contains(name)) {
            throw new IllegalArgumentException("which: expected stdout, stderr or trial.log, got '" + name + "'");
        }
        Optional<TrainingSession> session = experiment.sessionOf(trialId);
        if (session.isPresent()) {
            return session.get().openTrialFile(trialId, name);
        }
        Path path = experiment.directory().resolve("trials").resolve(trialId).resolve(name);
        return Files.isRegularFile(path) ? Optional.of(Files.newInputStream(path)) : Optional.empty();
    }
}
