package nni.ts.cloud;

import java.io.IOException;
import java.time.Duration;
import java.util.Objects;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperSessions;
import nni.api.environment.KeeperTransport;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * Opens a cloud platform's session (OpenPAI, PAI-DLC, Azure ML, DLTS) the same way for every
 * cluster. The platform component reads its section and builds its cluster's {@link JobLauncher.Api};
 * this builder takes the settings every cloud platform's configuration has, turns a bad value into
 * an error naming the platform, makes the HTTP client, checks the cluster through the API (closing
 * it when that fails), then starts the {@link JobLauncher} and the manager's keeper session on top
 * ({@link JobSession}).
 *
 * <p>One builder per session, used from the thread that opens it.
 */
public final class CloudSessionBuilder {

    private static final Logger LOG = LoggerFactory.getLogger(CloudSessionBuilder.class);

    /** A step of opening that reads the section or a setting, and may find it wrong. */
    @FunctionalInterface
    public interface Step<T> {
        T get() throws IOException, CloudException;
    }

    /** A check of the cluster before any job is submitted. */
    @FunctionalInterface
    public interface Check {
        /**
         * @return why it could not be done now (the cluster unreachable: the session opens all the
         *         same), or null
         * @throws PlatformException when the cluster refuses (bad credentials, no such workspace)
         */
        String run() throws PlatformException;
    }

    private final String platform;
    private final String title;
    private final SessionContext context;
    private final KeeperSessions keeperSessions;
    private String nniPlatform;
    private KeeperChoice keeper = KeeperChoice.AUTO;
    private KeeperTransport transport;
    private String transportChoice;
    private String managerHost;
    private boolean reuse = true;
    private int maxJobs = 1;
    private Duration idleTimeout;
    private Duration refresh;
    private Duration missingAfter;
    private Duration stopGrace = Duration.ofSeconds(5);
    private String service;
    private String checked;
    private Check check;
    private String description = "";

    /**
     * @param platform the platform's name ({@code openpai}): errors start with it, threads are named after it
     * @param title    how messages name the cluster's jobs ({@code OpenPAI})
     */
    public CloudSessionBuilder(String platform, String title, SessionContext context, KeeperSessions keeperSessions) {
        this.platform = platform;
        this.nniPlatform = platform;
        this.title = title;
        this.context = context;
        this.keeperSessions = keeperSessions;
    }

    /**
     * Runs a step that reads the section or the configuration.
     *
     * @throws PlatformException naming the platform, when the step finds a bad value or a file it cannot read
     */
    public <T> T checked(Step<T> step) throws PlatformException {
        try {
            return step.get();
        } catch (IOException | CloudException | IllegalArgumentException e) {
            throw new PlatformException(platform + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param setting the configuration's {@code keeper}: python, java or auto
     * @return the keeper the jobs run
     * @throws PlatformException naming the platform and the values {@code keeper} takes
     */
    public KeeperChoice keeper(String setting) throws PlatformException {
        keeper = checked(() -> KeeperChoice.of(setting));
        return keeper;
    }

    /** @return the keeper read by {@link #keeper(String)} (auto until then) */
    public KeeperChoice keeper() {
        return keeper;
    }

    /** The name the trials see as {@code NNI_PLATFORM}, when NNI's differs from the platform's ({@code pai}). */
    public CloudSessionBuilder nniPlatform(String name) {
        this.nniPlatform = name;
        return this;
    }

    /** How the keepers report to the manager; unset: over HTTP. */
    public CloudSessionBuilder transport(KeeperTransport transport) {
        return transport(transport, null);
    }

    /**
     * @param why how the platform chose it, shown with the session's {@link TrainingSession#reportChannel()}
     *            ({@code nni:platforms}, the web UI); null: the transport alone is shown
     */
    public CloudSessionBuilder transport(KeeperTransport transport, String why) {
        this.transport = transport;
        this.transportChoice = why;
        return this;
    }

    /** @param host {@code nniManagerIp}, where the jobs call the manager back; null: the manager decides */
    public CloudSessionBuilder managerHost(String host) {
        this.managerHost = host;
        return this;
    }

    /** @param reuse long-lived jobs that run trials one after another (the default), or one job per trial */
    public CloudSessionBuilder reuse(boolean reuse) {
        this.reuse = reuse;
        return this;
    }

    /** @param seconds how long a reuse environment may stay idle before its job is stopped; unset: 10 minutes */
    public CloudSessionBuilder idleTimeout(int seconds) {
        this.idleTimeout = Duration.ofSeconds(seconds);
        return this;
    }

    /** @param maxJobs the most jobs alive at once (at least one; unset: one) */
    public CloudSessionBuilder maxJobs(int maxJobs) {
        this.maxJobs = Math.max(1, maxJobs);
        return this;
    }

    /** @param seconds how often the jobs' statuses are asked for */
    public CloudSessionBuilder refresh(int seconds) {
        this.refresh = Duration.ofSeconds(seconds);
        return this;
    }

    /** @param seconds how long a job may be unknown to the cluster before it counts as gone */
    public CloudSessionBuilder missingAfter(int seconds) {
        this.missingAfter = Duration.ofSeconds(seconds);
        return this;
    }

    /** @param seconds with one job per trial: how long a job may outlive its trial; unset: 5 */
    public CloudSessionBuilder stopGrace(int seconds) {
        this.stopGrace = Duration.ofSeconds(seconds);
        return this;
    }

    /**
     * @param service        the cluster's address, as messages name it
     * @param timeoutSeconds how long one request may take
     * @return the client the platform's API calls the cluster with, its threads named after the experiment
     */
    public HttpCalls http(String service, int timeoutSeconds) {
        this.service = service;
        return new HttpCalls(service, Duration.ofSeconds(timeoutSeconds), threads());
    }

    /**
     * @param what  what the check is about, for the warning when it cannot be done now ("the OpenPAI token")
     * @param check run before the first job, once the API is built
     */
    public CloudSessionBuilder checking(String what, Check check) {
        this.checked = what;
        this.check = check;
        return this;
    }

    /** @param details what the session's log line tells besides the cluster ("reuse mode, keeper auto, reports http") */
    public CloudSessionBuilder describedAs(String details) {
        this.description = details;
        return this;
    }

    /**
     * Checks the cluster through {@code api}, then starts the launcher and the keeper session.
     *
     * @throws PlatformException when the check fails (the API is closed) or the keeper session
     *                           cannot open (the launcher is detached, no job is stopped)
     */
    public TrainingSession open(JobLauncher.Api api) throws PlatformException {
        Objects.requireNonNull(refresh, "refresh");
        Objects.requireNonNull(missingAfter, "missingAfter");
        String experiment = context.experimentId();
        if (check != null) {
            try {
                String unchecked = check.run();
                if (unchecked != null) {
                    LOG.warn("experiment {}: {} could not be checked now: {}", experiment, checked, unchecked);
                }
            } catch (PlatformException | RuntimeException e) {
                api.close();
                throw e;
            }
        }
        JobLauncher launcher = new JobLauncher(api, title, threads(), refresh, missingAfter, context::capacityChanged);
        KeeperOptions.Builder options = KeeperOptions.builder(nniPlatform).reuse(reuse).maxEnvironments(maxJobs)
                .managerHost(managerHost).keeper(keeper);
        if (idleTimeout != null) {
            options.idleTimeout(idleTimeout);
        }
        if (transport != null) {
            options.transport(transport);
        }
        LOG.info("experiment {}: {} session on {} ({})", experiment, title, service, description);
        return JobSession.open(context, launcher, options.build(), stopGrace, keeperSessions).transportChosen(transportChoice);
    }

    private String threads() {
        return "nni-" + platform + "-" + context.experimentId();
    }
}
