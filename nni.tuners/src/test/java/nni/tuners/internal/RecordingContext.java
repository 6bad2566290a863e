package nni.tuners.internal;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.PastTrial;

/** A {@link DispatcherContext} that records the algorithm's answers in order. */
final class RecordingContext implements DispatcherContext {

    static final ObjectMapper JSON = new ObjectMapper();

    /** The answers, in order: "TR <packed>", "SP <packed>", "NO", "EXHAUSTED", "KI <trial>", "REFUSED <reason>", "FAILED <message>". */
    final List<String> answers = new ArrayList<>();
    /** What a resumed experiment gives: its trials and earlier imports (empty: a new experiment). */
    final List<PastTrial> pastTrials = new ArrayList<>();
    final List<String> importedData = new ArrayList<>();
    private AlgorithmSection assessor;
    private final Map<String, Object> searchSpace;
    private final AlgorithmSection tuner;
    private final List<String> resumed;

    RecordingContext(Map<String, Object> searchSpace, AlgorithmSection tuner, List<String> resumed) {
        this.searchSpace = searchSpace;
        this.tuner = tuner;
        this.resumed = resumed;
    }

    /** @return the trials given since the last call, parsed, and forgets them */
    List<JsonNode> takeTrials() {
        List<JsonNode> trials = new ArrayList<>();
        for (String answer : answers) {
            if (answer.startsWith("TR ")) {
                try {
                    trials.add(JSON.readTree(answer.substring(3)));
                } catch (Exception e) {
                    throw new AssertionError(answer, e);
                }
            }
        }
        answers.removeIf(answer -> answer.startsWith("TR "));
        return trials;
    }

    @Override
    public String experimentId() {
        return "test0001";
    }

    @Override
    public Path experimentDirectory() {
        return Path.of("unused");
    }

    @Override
    public boolean resuming() {
        return !resumed.isEmpty() || !pastTrials.isEmpty();
    }

    @Override
    public Map<String, Object> experimentConfig() {
        return Map.of();
    }

    @Override
    public Map<String, Object> searchSpace() {
        return searchSpace;
    }

    @Override
    public AlgorithmSection tuner() {
        return tuner;
    }

    @Override
    public Optional<AlgorithmSection> assessor() {
        return Optional.ofNullable(assessor);
    }

    @Override
    public String resumeData() {
        return "[]";
    }

    @Override
    public List<String> resumedParameters() {
        return resumed;
    }

    /** Gives the experiment an assessor section. */
    RecordingContext withAssessor(AlgorithmSection section) {
        this.assessor = section;
        return this;
    }

    @Override
    public List<PastTrial> pastTrials() {
        return pastTrials;
    }

    @Override
    public List<String> importedData() {
        return importedData;
    }

    @Override
    public void exhausted() {
        answers.add("EXHAUSTED");
    }

    @Override
    public void refuseChange(String reason) {
        answers.add("REFUSED " + reason);
    }

    @Override
    public void newTrial(String parameters) {
        answers.add("TR " + parameters);
    }

    @Override
    public void sendParameters(String parameters) {
        answers.add("SP " + parameters);
    }

    @Override
    public void noMoreTrials() {
        answers.add("NO");
    }

    @Override
    public void killTrial(String trialId) {
        answers.add("KI " + trialId);
    }

    @Override
    public void failed(String message) {
        answers.add("FAILED " + message);
    }
}
