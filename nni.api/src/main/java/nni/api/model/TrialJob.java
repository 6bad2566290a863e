package nni.api.model;

import java.time.Instant;
import java.util.Objects;

/**
 * A platform's view of one trial at one moment: NNI's {@code TrialJobDetail}. Immutable; a change
 * of state is a new instance reported through
 * {@link nni.api.platform.SessionContext#trialChanged(TrialJob)}.
 *
 * @param id               trial id, as given in the {@link TrialApplication}
 * @param sequenceId       as given in the application
 * @param status           one of NNI's eight statuses
 * @param submitTime       when the platform accepted the trial
 * @param startTime        when the trial process started, {@code null} before
 * @param endTime          when it reached a terminal status, {@code null} before
 * @param workingDirectory the trial's directory ({@code NNI_SYS_DIR}) as the platform sees it
 * @param url              where a person finds the trial (NNI's {@code logPath}), e.g.
 *                         {@code file://localhost/<dir>} or a platform job page
 * @param hyperParameters  the first parameter set
 * @param earlyStopped     true when it was cancelled on the assessor's or a duration limit's behalf
 * @param message          a human-readable reason for the current status ("waiting: needs 2 GPUs, 1
 *                         free", "exit code 3"), or empty
 */
public record TrialJob(String id, long sequenceId, TrialStatus status, Instant submitTime, Instant startTime,
                       Instant endTime, String workingDirectory, String url, HyperParameters hyperParameters,
                       boolean earlyStopped, String message) {

    public TrialJob {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(submitTime, "submitTime");
        Objects.requireNonNull(hyperParameters, "hyperParameters");
        workingDirectory = workingDirectory == null ? "" : workingDirectory;
        url = url == null ? "" : url;
        message = message == null ? "" : message;
    }

    /** @return a new WAITING trial for an application, submitted now */
    public static TrialJob waiting(TrialApplication application, String workingDirectory, String url) {
        return new TrialJob(application.trialId(), application.sequenceId(), TrialStatus.WAITING, Instant.now(),
                null, null, workingDirectory, url, application.hyperParameters(), false, "");
    }

    /** @return this trial RUNNING since {@code at} */
    public TrialJob running(Instant at) {
        return new TrialJob(id, sequenceId, TrialStatus.RUNNING, submitTime, at, null, workingDirectory, url,
                hyperParameters, false, "");
    }

    /** @return this trial ended in {@code terminal} at {@code at}, with a reason */
    public TrialJob ended(TrialStatus terminal, Instant at, String why) {
        if (!terminal.isTerminal()) {
            throw new IllegalArgumentException(terminal + " is not a terminal status");
        }
        return new TrialJob(id, sequenceId, terminal, submitTime, startTime, at, workingDirectory, url,
                hyperParameters, terminal == TrialStatus.EARLY_STOPPED, why);
    }

    /** @return this trial with another message and status unchanged */
    public TrialJob withMessage(String newMessage) {
        return new TrialJob(id, sequenceId, status, submitTime, startTime, endTime, workingDirectory, url,
                hyperParameters, earlyStopped, newMessage);
    }
}
