package nni.api.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

import org.osgi.annotation.versioning.ProviderType;

/**
 * One experiment read for looking at, from {@link ExperimentService#read}: the open experiment
 * itself, or a stored one that is not open, read from its files as a read-only copy. A copy runs
 * nothing and is not open: {@link ExperimentService#list()}, a null id and the other methods of the
 * service do not see it, and NNI's tools do not either. Each read answers a copy taken at that
 * moment, as the service's do. Close a reading when done looking: that lets a copy go (its database
 * closed); closing a reading of the open experiment changes nothing. Thread-safe (since 1.5).
 */
@ProviderType
public interface ExperimentReading extends AutoCloseable {

    /** @return the experiment now */
    ExperimentInfo info();

    /**
     * @return true while this reads the experiment that is open; false for a copy of a stored one,
     *         and once the experiment read was stopped
     */
    boolean open();

    /**
     * @return the experiment summed up for an overview: its trials counted, the best result, the time
     *         left and its configuration as written (since 1.5)
     */
    ExperimentSummary summary();

    /**
     * @return its members (training services), in configuration order, each with its session's state
     *         and view; empty for a copy and for an experiment opened read-only, which have no
     *         sessions (since 1.5)
     */
    List<ExperimentMember> members();

    /** @return its trials in sequence order, their intermediate results counted ({@link ExperimentService#trialSummaries}) */
    List<TrialSummary> trialSummaries();

    /**
     * @return every event of its trials (the statuses they took, their cancellations asked), in the
     *         order stored (since 1.5)
     */
    List<TrialEvent> trialEvents();

    /** @return the trial with every intermediate result; empty when the experiment has no such trial */
    Optional<TrialInfo> trial(String trialId);

    /** @return its search space as configured now, in NNI's JSON form: parameter name to {@code {_type, _value}}; not to be changed */
    Map<String, Object> searchSpace();

    /** @return its profile, as {@link ExperimentService#profile} answers it: the configuration with secrets masked */
    ExperimentProfile profile();

    /**
     * @return the configuration file it was created from, secrets masked; empty when none was kept
     *         (created before files were kept, or from no file)
     * @throws IOException when the kept file cannot be read
     */
    Optional<GivenConfigFile> givenConfig() throws IOException;

    /**
     * Gives every stored metric, in the order stored, one at a time: read from the store as they are
     * given, never held whole (an experiment may have millions). An exception the action throws ends
     * the reading and is thrown on.
     */
    void forEachMetric(Consumer<? super MetricInfo> action);

    /**
     * Opens one of a trial's output files, as {@link ExperimentService#openTrialFile} does.
     *
     * @return as {@link ExperimentService#openTrialFile}: the file (the caller closes it), empty when
     *         the trial has no such file yet; NOT_FOUND, INVALID as there
     */
    Outcome<Optional<InputStream>> openTrialFile(String trialId, String name) throws IOException;

    /** Lets a copy go; nothing for the open experiment. Safe to call twice. */
    @Override
    void close();
}
