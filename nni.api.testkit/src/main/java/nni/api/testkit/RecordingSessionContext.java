package nni.api.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import nni.api.model.TrialJob;
import nni.api.platform.SessionContext;

/**
 * A {@link SessionContext} that stands in for the manager in a platform's tests: it records every
 * status change and metric line a session reports, stores metrics as the manager does (a line with
 * the same trial, type and sequence is stored once), and notes every breach of the reporting
 * contract it can see as a <em>violation</em> instead of failing inside the platform's thread:
 * <ul>
 * <li>a metric reported after its trial's terminal status;</li>
 * <li>any status reported after a trial's terminal status (exactly one terminal status per trial);</li>
 * <li>a metric whose {@code trial_job_id} names another trial;</li>
 * <li>anything reported after the test called {@link #sessionDetached()} (a detached session
 *     reports nothing); such a metric is also refused with an {@link IllegalStateException}, as the
 *     manager refuses it.</li>
 * </ul>
 * Tests read what happened with {@link #changes}, {@link #latest}, {@link #metrics},
 * {@link #storedMetrics} and {@link #violations()}, and wait for it with {@link #awaitStatus} and
 * {@link #awaitTerminal} (bounded waits, woken by the reports themselves: no polling, no sleeps).
 *
 * <p>Thread-safe: platforms call it from any thread.
 */
public final class RecordingSessionContext implements SessionContext {

    private static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"(\\w+)\"");
    private static final Pattern SEQUENCE = Pattern.compile("\"sequence\"\\s*:\\s*(\\d+)");
    private static final Pattern TRIAL = Pattern.compile("\"trial_job_id\"\\s*:\\s*\"([^\"]*)\"");

    private final String experimentId;
    private final Path experimentDirectory;
    private final String platform;
    private final Map<String, Object> section;

    private final List<TrialJob> changes = new ArrayList<>();
    private final Map<String, TrialJob> latest = new LinkedHashMap<>();
    private final Map<String, List<String>> metrics = new LinkedHashMap<>();
    private final Map<String, Set<String>> stored = new LinkedHashMap<>();
    private final List<String> violations = new ArrayList<>();
    private int capacityChanges;
    private boolean detached;

    /**
     * @param section the platform's section as {@link nni.api.platform.TrainingPlatform#checkSection}
     *                returned it (canonical, secrets real), what the manager hands a session
     */
    public RecordingSessionContext(String experimentId, Path experimentDirectory, String platform, Map<String, Object> section) {
        this.experimentId = Objects.requireNonNull(experimentId, "experimentId");
        this.experimentDirectory = Objects.requireNonNull(experimentDirectory, "experimentDirectory");
        this.platform = Objects.requireNonNull(platform, "platform");
        this.section = Collections.unmodifiableMap(new LinkedHashMap<>(section));
    }

    @Override
    public String experimentId() {
        return experimentId;
    }

    @Override
    public Path experimentDirectory() {
        return experimentDirectory;
    }

    @Override
    public String platform() {
        return platform;
    }

    @Override
    public Map<String, Object> section() {
        return section;
    }

    @Override
    public synchronized void trialChanged(TrialJob trial) {
        Objects.requireNonNull(trial, "trial");
        if (detached) {
            violations.add("status reported after the session was detached: " + trial);
            return;
        }
        TrialJob before = latest.get(trial.id());
        if (before != null && before.status().isTerminal()) {
            violations.add("status reported after the terminal status " + before.status() + " of trial " + trial.id() + ": " + trial);
        }
        changes.add(trial);
        latest.put(trial.id(), trial);
        notifyAll();
    }

    @Override
    public synchronized void metricReported(String trialId, String line) {
        if (detached) {
            violations.add("metric reported after the session was detached: trial " + trialId + ": " + line);
            throw new IllegalStateException("the session was detached");
        }
        Matcher type = TYPE.matcher(line);
        Matcher sequence = SEQUENCE.matcher(line);
        if (!type.find() || !sequence.find()) {
            throw new IllegalArgumentException("not a metric (no type or sequence): " + line);
        }
        Matcher named = TRIAL.matcher(line);
        if (named.find() && !named.group(1).equals(trialId)) {
            violations.add("metric of trial " + named.group(1) + " reported for trial " + trialId + ": " + line);
            throw new IllegalArgumentException("the metric names trial " + named.group(1) + ", not " + trialId);
        }
        TrialJob trial = latest.get(trialId);
        if (trial != null && trial.status().isTerminal()) {
            violations.add("metric reported after the terminal status " + trial.status() + " of trial " + trialId + ": " + line);
        }
        metrics.computeIfAbsent(trialId, id -> new ArrayList<>()).add(line);
        stored.computeIfAbsent(trialId, id -> new LinkedHashSet<>()).add(type.group(1) + "/" + sequence.group(1));
        notifyAll();
    }

    @Override
    public synchronized void capacityChanged() {
        if (detached) {
            violations.add("capacity change reported after the session was detached");
        }
        capacityChanges++;
    }

    /**
     * Tells the context that the test detached its session: from now on every report is a
     * violation, and metrics are refused with {@link IllegalStateException}.
     */
    public synchronized void sessionDetached() {
        detached = true;
    }

    /** @return every status change reported, in order */
    public synchronized List<TrialJob> changes() {
        return List.copyOf(changes);
    }

    /** @return the status changes reported for one trial, in order */
    public synchronized List<TrialJob> changes(String trialId) {
        return changes.stream().filter(job -> job.id().equals(trialId)).toList();
    }

    /** @return the trial as last reported, or empty */
    public synchronized Optional<TrialJob> latest(String trialId) {
        return Optional.ofNullable(latest.get(trialId));
    }

    /** @return every metric line reported for the trial, in order, repeats included */
    public synchronized List<String> metrics(String trialId) {
        return List.copyOf(metrics.getOrDefault(trialId, List.of()));
    }

    /** @return the trial's metrics as the manager stores them: distinct {@code TYPE/sequence}, in first-report order */
    public synchronized Set<String> storedMetrics(String trialId) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(stored.getOrDefault(trialId, Set.of())));
    }

    /** @return how many terminal statuses the trial got (the contract: exactly one, once it ended) */
    public synchronized long terminalStatuses(String trialId) {
        return changes.stream().filter(job -> job.id().equals(trialId) && job.status().isTerminal()).count();
    }

    /** @return how often {@link #capacityChanged()} was called */
    public synchronized int capacityChanges() {
        return capacityChanges;
    }

    /** @return every breach of the reporting contract seen so far (see the class description), in order */
    public synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    /**
     * Waits until the trial's latest reported state satisfies {@code condition}.
     *
     * @param what     says what is awaited, for the failure message
     * @param patience how long to wait at most
     * @return the trial as reported when the condition held
     * @throws AssertionError when it did not hold in time; the message holds the trial's reports
     */
    public synchronized TrialJob awaitStatus(String trialId, Predicate<TrialJob> condition, String what, Duration patience)
            throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        while (true) {
            TrialJob trial = latest.get(trialId);
            if (trial != null && condition.test(trial)) {
                return trial;
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                throw new AssertionError("trial " + trialId + " did not become " + what + " within " + patience.toSeconds()
                        + " s; its reports: " + changes(trialId) + ", metrics: " + metrics(trialId));
            }
            Duration wait = Duration.ofNanos(left);
            wait(Math.max(1, wait.toMillis()));
        }
    }

    /** Waits for the trial's terminal status. @see #awaitStatus */
    public TrialJob awaitTerminal(String trialId, Duration patience) throws InterruptedException {
        return awaitStatus(trialId, job -> job.status().isTerminal(), "terminal", patience);
    }

    @Override
    public synchronized String toString() {
        return "RecordingSessionContext[" + experimentId + ", " + platform + ", " + changes.size() + " changes, "
                + metrics.values().stream().mapToInt(List::size).sum() + " metrics, " + violations.size() + " violations]";
    }
}
