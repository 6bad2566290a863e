package nni.api.platform;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

import nni.api.model.TrialJob;

/**
 * What the manager hands a platform for one member of one experiment run: the experiment's use of
 * one training service ({@code trainingService}, or one element of a list of them). Implemented by
 * the manager; platform bundles only call it.
 *
 * <h2>Threading</h2>
 * Every method is thread-safe and may be called from any thread, but for one trial a platform calls
 * them in the order things happened (one thread per trial, or its own serialisation): every metric
 * before the terminal status. The callbacks never block on the manager's scheduling: they hand the
 * work to the experiment's thread, except that metrics are stored before they return.
 *
 * <h2>After close and detach</h2>
 * While {@link TrainingSession#close()} runs, the session still reports the trials it cancels, as
 * usual. After {@link TrainingSession#detach()} returned, the session calls nothing here any more;
 * a status reported anyway is ignored and a metric reported anyway is refused with an
 * {@link IllegalStateException} (so a keeper that sent it keeps it and sends it again later).
 */
@ProviderType
public interface SessionContext {

    /** @return the experiment's id ({@code NNI_EXP_ID}) */
    String experimentId();

    /** @return the experiment's directory on the manager's machine ({@code ~/nni-experiments/<id>}) */
    Path experimentDirectory();

    /** @return the name of this member's platform, as {@code trainingService.platform} gives it */
    String platform();

    /**
     * @return this platform's section of the experiment configuration, as checked by
     *         {@link TrainingPlatform#checkSection}, with NNI's common fields copied in; its secrets
     *         are the real values (everywhere else the manager masks them), so never log or echo it
     */
    Map<String, Object> section();

    /**
     * Reports a trial's new state. The manager stores it and acts on it: a terminal status frees a
     * concurrency slot and ends the trial for the tuner; a new {@link TrialJob#message()},
     * {@link TrialJob#handle()}, {@link TrialJob#host()} or {@link TrialJob#attributes()} is kept
     * and shown. A passing problem of a running trial (a node restarting, a machine unreachable for
     * a while) is reported with the status unchanged, or {@code UNKNOWN}, and a message saying what
     * happens; the manager shows it as the trial's reason.
     */
    void trialChanged(TrialJob trial);

    /**
     * Reports one metric line exactly as the trial wrote it (the JSON object of NNI's metric
     * protocol, without the {@code ME} framing or {@code NNISDK_MEb} marker). Returns once the
     * metric is durable in the experiment's store, so a platform may acknowledge it to a remote
     * keeper only after this returns. A line reported twice with the same trial, type and sequence
     * is stored once.
     *
     * @throws IllegalArgumentException if the line is not a metric; the manager has logged it and
     *                                  the platform goes on with the next line
     * @throws IllegalStateException    if the experiment cannot take it now (it is closing, or the
     *                                  session was detached); the platform keeps the line and may
     *                                  report it again to a later session
     */
    void metricReported(String trialId, String line);

    /**
     * Reports several metric lines of one trial, in the order the trial wrote them, as
     * {@link #metricReported} would one by one, but durable together: returns once every line is
     * durable, so a store can commit them in one transaction (the trial keepers' report batches
     * arrive this way). Lines that are not metrics are skipped and the others stored.
     *
     * @throws IllegalArgumentException after storing the others, naming the lines that were not metrics
     * @throws IllegalStateException    as {@link #metricReported}, before storing any
     */
    default void metricsReported(String trialId, List<String> lines) {
        List<String> refused = new ArrayList<>();
        for (String line : lines) {
            try {
                metricReported(trialId, line);
            } catch (IllegalArgumentException e) {
                refused.add(e.getMessage());
            }
        }
        if (!refused.isEmpty()) {
            throw new IllegalArgumentException(refused.size() + " of " + lines.size() + " lines were not metrics: " + refused);
        }
    }

    /**
     * Signals that {@link TrainingSession#capacity()} changed (a machine joined, a quota was
     * raised, GPUs were freed by others). The manager reads {@code capacity()} again on its own
     * thread and may submit. Cheap; call it as often as the capacity changes.
     */
    void capacityChanged();
}
