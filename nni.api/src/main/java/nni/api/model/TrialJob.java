package nni.api.model;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A platform's view of one trial at one moment: NNI's {@code TrialJobDetail}, plus where the trial
 * runs and the platform's handle on it. Immutable; a change of state is a new instance reported
 * through {@link nni.api.platform.SessionContext#trialChanged(TrialJob)}. Made with
 * {@link #waiting}, the transitions ({@link #running}, {@link #ended}, {@link #withMessage}) or
 * {@link #builder(String)} / {@link #toBuilder()}; every transition keeps {@link #handle()},
 * {@link #host()} and {@link #attributes()}.
 *
 * <p>The manager stores {@code handle}, {@code host} and {@code attributes} with the trial (in the
 * experiment's database, next to NNI's tables), shows {@code host} and {@code attributes} in the
 * trial's REST record and in {@code nni:trial}, and gives all three back in the {@code TrialJob}
 * it passes to {@link nni.api.platform.TrainingSession#reattach}.
 */
public final class TrialJob {

    private final String id;
    private final long sequenceId;
    private final TrialStatus status;
    private final Instant submitTime;
    private final Instant startTime;
    private final Instant endTime;
    private final String workingDirectory;
    private final String url;
    private final HyperParameters hyperParameters;
    private final boolean earlyStopped;
    private final String message;
    private final String handle;
    private final String host;
    private final Map<String, String> attributes;

    private TrialJob(Builder b) {
        this.id = b.id;
        this.sequenceId = b.sequenceId;
        this.status = Objects.requireNonNull(b.status, "status");
        this.submitTime = Objects.requireNonNull(b.submitTime, "submitTime");
        this.startTime = b.startTime;
        this.endTime = b.endTime;
        this.workingDirectory = b.workingDirectory;
        this.url = b.url;
        this.hyperParameters = Objects.requireNonNull(b.hyperParameters, "hyperParameters");
        this.earlyStopped = b.earlyStopped;
        this.message = b.message;
        this.handle = b.handle;
        this.host = b.host;
        this.attributes = Collections.unmodifiableMap(new LinkedHashMap<>(b.attributes));
    }

    /** @return a builder for trial {@code id}: status WAITING, submitted now, no handle, host or attributes */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** @return a builder holding every field of this trial */
    public Builder toBuilder() {
        Builder b = new Builder(id);
        b.sequenceId = sequenceId;
        b.status = status;
        b.submitTime = submitTime;
        b.startTime = startTime;
        b.endTime = endTime;
        b.workingDirectory = workingDirectory;
        b.url = url;
        b.hyperParameters = hyperParameters;
        b.earlyStopped = earlyStopped;
        b.message = message;
        b.handle = handle;
        b.host = host;
        b.attributes = new LinkedHashMap<>(attributes);
        return b;
    }

    /** @return a new WAITING trial for an application, submitted now */
    public static TrialJob waiting(TrialApplication application, String workingDirectory, String url) {
        return builder(application.trialId()).sequenceId(application.sequenceId())
                .hyperParameters(application.hyperParameters()).workingDirectory(workingDirectory).url(url).build();
    }

    /** @return this trial RUNNING since {@code at}, its message cleared */
    public TrialJob running(Instant at) {
        return toBuilder().status(TrialStatus.RUNNING).startTime(at).endTime(null).earlyStopped(false).message("").build();
    }

    /**
     * @return this trial ended in {@code terminal} at {@code at}, with a reason
     * @throws IllegalArgumentException if {@code terminal} is not a terminal status
     */
    public TrialJob ended(TrialStatus terminal, Instant at, String why) {
        if (!terminal.isTerminal()) {
            throw new IllegalArgumentException(terminal + " is not a terminal status");
        }
        return toBuilder().status(terminal).endTime(at).earlyStopped(terminal == TrialStatus.EARLY_STOPPED).message(why).build();
    }

    /** @return this trial with another message and status unchanged */
    public TrialJob withMessage(String newMessage) {
        return toBuilder().message(newMessage).build();
    }

    /** @return the trial id, as given in the {@link TrialApplication} */
    public String id() {
        return id;
    }

    /** @return as given in the application */
    public long sequenceId() {
        return sequenceId;
    }

    /** @return one of NNI's eight statuses */
    public TrialStatus status() {
        return status;
    }

    /** @return when the platform accepted the trial */
    public Instant submitTime() {
        return submitTime;
    }

    /** @return when the trial process started, {@code null} before */
    public Instant startTime() {
        return startTime;
    }

    /** @return when it reached a terminal status, {@code null} before */
    public Instant endTime() {
        return endTime;
    }

    /** @return the trial's directory ({@code NNI_SYS_DIR}) as the platform sees it, or empty */
    public String workingDirectory() {
        return workingDirectory;
    }

    /**
     * @return where a person finds the trial (NNI's {@code logPath}), e.g.
     *         {@code file://localhost/<dir>} or a platform job page; or empty
     */
    public String url() {
        return url;
    }

    /** @return the first parameter set */
    public HyperParameters hyperParameters() {
        return hyperParameters;
    }

    /** @return true when it was cancelled on the assessor's or a duration limit's behalf */
    public boolean earlyStopped() {
        return earlyStopped;
    }

    /**
     * @return a human-readable reason for the current status ("waiting: needs 2 GPUs, 1 free",
     *         "exit code 3", "retrying in 4 s: quota exceeded"), or empty
     */
    public String message() {
        return message;
    }

    /**
     * @return the platform's own handle on the trial, opaque to the manager, or empty: what the
     *         platform needs to find the trial again after a restart (local: pid and process start
     *         time; remote: machine and keeper pid; OpenPAI: the job name; Kubernetes: the object
     *         name; AML: the run id). Never a secret.
     */
    public String handle() {
        return handle;
    }

    /** @return where the trial runs (a machine, node or pod name), or empty; shown to users */
    public String host() {
        return host;
    }

    /**
     * @return a few display facts about the trial, such as {@code keeper=python 3.11}; shown to users,
     *         so short, and never a secret. Unmodifiable.
     */
    public Map<String, String> attributes() {
        return attributes;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof TrialJob that && id.equals(that.id) && sequenceId == that.sequenceId
                && status == that.status && submitTime.equals(that.submitTime) && Objects.equals(startTime, that.startTime)
                && Objects.equals(endTime, that.endTime) && workingDirectory.equals(that.workingDirectory)
                && url.equals(that.url) && hyperParameters.equals(that.hyperParameters) && earlyStopped == that.earlyStopped
                && message.equals(that.message) && handle.equals(that.handle) && host.equals(that.host)
                && attributes.equals(that.attributes);
    }

    @Override
    public int hashCode() {
        return Objects.hash(id, sequenceId, status, submitTime, startTime, endTime, workingDirectory, url, hyperParameters,
                earlyStopped, message, handle, host, attributes);
    }

    @Override
    public String toString() {
        return "TrialJob[" + id + ", sequence " + sequenceId + ", " + status + (message.isEmpty() ? "" : " (" + message + ")")
                + (host.isEmpty() ? "" : ", on " + host) + (handle.isEmpty() ? "" : ", handle " + handle) + "]";
    }

    /**
     * Builds a {@link TrialJob}; not thread-safe. {@code hyperParameters} is required; text fields
     * given as {@code null} become empty.
     */
    public static final class Builder {
        private final String id;
        private long sequenceId;
        private TrialStatus status = TrialStatus.WAITING;
        private Instant submitTime = Instant.now();
        private Instant startTime;
        private Instant endTime;
        private String workingDirectory = "";
        private String url = "";
        private HyperParameters hyperParameters;
        private boolean earlyStopped;
        private String message = "";
        private String handle = "";
        private String host = "";
        private Map<String, String> attributes = new LinkedHashMap<>();

        private Builder(String id) {
            this.id = Objects.requireNonNull(id, "id");
        }

        public Builder sequenceId(long sequenceId) {
            this.sequenceId = sequenceId;
            return this;
        }

        public Builder status(TrialStatus status) {
            this.status = Objects.requireNonNull(status, "status");
            return this;
        }

        public Builder submitTime(Instant submitTime) {
            this.submitTime = Objects.requireNonNull(submitTime, "submitTime");
            return this;
        }

        public Builder startTime(Instant startTime) {
            this.startTime = startTime;
            return this;
        }

        public Builder endTime(Instant endTime) {
            this.endTime = endTime;
            return this;
        }

        public Builder workingDirectory(String workingDirectory) {
            this.workingDirectory = workingDirectory == null ? "" : workingDirectory;
            return this;
        }

        public Builder url(String url) {
            this.url = url == null ? "" : url;
            return this;
        }

        public Builder hyperParameters(HyperParameters hyperParameters) {
            this.hyperParameters = Objects.requireNonNull(hyperParameters, "hyperParameters");
            return this;
        }

        public Builder earlyStopped(boolean earlyStopped) {
            this.earlyStopped = earlyStopped;
            return this;
        }

        public Builder message(String message) {
            this.message = message == null ? "" : message;
            return this;
        }

        public Builder handle(String handle) {
            this.handle = handle == null ? "" : handle;
            return this;
        }

        public Builder host(String host) {
            this.host = host == null ? "" : host;
            return this;
        }

        /** Replaces every attribute; null keys or values are refused. */
        public Builder attributes(Map<String, String> attributes) {
            this.attributes = new LinkedHashMap<>();
            attributes.forEach(this::attribute);
            return this;
        }

        /** Adds or replaces one attribute. */
        public Builder attribute(String key, String value) {
            attributes.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** @throws NullPointerException if no hyperParameters were given */
        public TrialJob build() {
            return new TrialJob(this);
        }
    }
}
