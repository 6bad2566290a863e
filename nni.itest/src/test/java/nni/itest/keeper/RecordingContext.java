package nni.itest.keeper;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.SessionContext;

/**
 * The manager side of a session as the tests see it: records every status change and every
 * metric call, and keeps the metric store's rule (a line with the same trial, type and sequence is
 * stored once) so tests can check both what was stored and how often it was delivered.
 */
public final class RecordingContext implements SessionContext {

    private static final Pattern TYPE = Pattern.compile("\"type\"\\s*:\\s*\"(\\w+)\"");
    private static final Pattern SEQUENCE = Pattern.compile("\"sequence\"\\s*:\\s*(\\d+)");

    private final String experimentId;
    private final Path directory;
    private final Map<String, Object> section;
    public final List<TrialJob> changes = new CopyOnWriteArrayList<>();
    private final Map<String, TrialJob> latest = new ConcurrentHashMap<>();
    private final List<String[]> metricCalls = Collections.synchronizedList(new ArrayList<>());
    private final Set<String> stored = ConcurrentHashMap.newKeySet();

    public RecordingContext(String experimentId, Path directory, Map<String, Object> section) {
        this.experimentId = experimentId;
        this.directory = directory;
        this.section = section;
    }

    /**
     * @param directory the experiment's directory; the trial scripts ({@link TrialScripts}) are
     *                  written to its {@code code} folder, the section's {@code trialCodeDirectory}
     * @return a context whose section runs {@code trialCommand} on {@code platform}
     */
    public static RecordingContext withTrialScripts(String experimentId, Path directory, String platform, String trialCommand,
                                                    boolean reuse) throws IOException {
        Path code = directory.resolve("code");
        TrialScripts.write(code);
        Map<String, Object> section = new HashMap<>();
        section.put("platform", platform);
        section.put("trialCommand", trialCommand);
        section.put("trialCodeDirectory", code.toString());
        section.put("reuseMode", reuse);
        return new RecordingContext(experimentId, directory, section);
    }

    @Override
    public String experimentId() {
        return experimentId;
    }

    @Override
    public Path experimentDirectory() {
        return directory;
    }

    @Override
    public String platform() {
        return String.valueOf(section.getOrDefault("platform", "remote"));
    }

    @Override
    public Map<String, Object> section() {
        return section;
    }

    @Override
    public void capacityChanged() {
    }

    @Override
    public void trialChanged(TrialJob trial) {
        changes.add(trial);
        latest.put(trial.id(), trial);
    }

    @Override
    public void metricReported(String trialId, String line) {
        Matcher type = TYPE.matcher(line);
        Matcher sequence = SEQUENCE.matcher(line);
        if (!type.find() || !sequence.find() || !line.contains("\"trial_job_id\": \"" + trialId + "\"")) {
            throw new IllegalArgumentException("not a metric of trial " + trialId + ": " + line);
        }
        metricCalls.add(new String[] {trialId, line});
        stored.add(trialId + "|" + type.group(1) + "|" + sequence.group(1));
    }

    public TrialStatus status(String trialId) {
        TrialJob job = latest.get(trialId);
        return job == null ? null : job.status();
    }

    public TrialJob latest(String trialId) {
        return latest.get(trialId);
    }

    /** @return how many metric calls the trial's reports made */
    public int calls(String trialId) {
        synchronized (metricCalls) {
            return (int) metricCalls.stream().filter(c -> c[0].equals(trialId)).count();
        }
    }

    public int callsTotal() {
        return metricCalls.size();
    }

    /** @return the distinct (trial, type, sequence) metrics stored for the trial */
    public Set<String> stored(String trialId) {
        Set<String> mine = new java.util.TreeSet<>();
        stored.stream().filter(k -> k.startsWith(trialId + "|")).forEach(mine::add);
        return mine;
    }

    public List<String> lines(String trialId) {
        synchronized (metricCalls) {
            return metricCalls.stream().filter(c -> c[0].equals(trialId)).map(c -> c[1]).toList();
        }
    }

    /** @return how many terminal statuses the trial got (must be exactly one) */
    public long terminalChanges(String trialId) {
        return changes.stream().filter(j -> j.id().equals(trialId) && j.status().isTerminal()).count();
    }
}
