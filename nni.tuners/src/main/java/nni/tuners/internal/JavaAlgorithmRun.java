package nni.tuners.internal;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;

import nni.api.model.TrialStatus;
import nni.api.searchspace.SearchSpace;
import nni.api.searchspace.SearchSpaceException;
import nni.api.tuner.Assessor;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.PastTrial;
import nni.api.tuner.Tuner;

/**
 * One experiment run of a Java {@link Tuner} and optional {@link Assessor} as a {@link Dispatcher}:
 * every command is answered at once, on the thread that gives it (the experiment's), so the tuner
 * is called from one thread at a time and no thread of its own is needed. Parameter ids are 0, 1,
 * 2, ... in the order asked, continuing after a resumed experiment's.
 *
 * <p>A tuner's or assessor's exception fails the experiment ({@link DispatcherContext#failed}) with
 * what it was doing and its message; a search space or an import it cannot take is refused
 * ({@link DispatcherContext#refuseChange}) and the run goes on.
 */
public final class JavaAlgorithmRun implements Dispatcher {

    private static final Logger LOG = LoggerFactory.getLogger(JavaAlgorithmRun.class);
    private static final TypeReference<Map<String, Object>> PARAMETERS = new TypeReference<>() { };

    private final DispatcherContext context;
    private final Tuner tuner;
    private final Assessor assessor;
    private long nextParameterId;
    /**
     * Resume history (issue 25): the parameter sets a resumed experiment's trials have, each as many
     * times as trials have it. A new tuner (a seeded one above all) may draw them again; each is
     * passed over once instead of becoming a second trial.
     */
    private final Map<JsonNode, Integer> tried = new HashMap<>();
    /** The parameters of each id given out and not ended yet: a final result is the tuner's with them. */
    private final Map<Long, Map<String, Object>> given = new HashMap<>();
    /** Each live trial's intermediate results so far, as its assessor judges them. */
    private final Map<String, List<Double>> intermediate = new HashMap<>();
    /** The trials that ended in this run: a late intermediate result of one is not judged. */
    private final Set<String> ended = new HashSet<>();
    private boolean closed;

    /**
     * Starts the run; on resume the earlier imports and the trials' results and ends are given to the
     * new tuner first, in that order.
     *
     * @param assessor the assessor, or null
     */
    public JavaAlgorithmRun(DispatcherContext context, Tuner tuner, Assessor assessor) {
        this.context = context;
        this.tuner = tuner;
        this.assessor = assessor;
        for (String data : context.importedData()) {
            try {
                ImportedResults.parse(data).forEach(result -> tuner.importResult(result.parameters(), result.value()));
            } catch (IllegalArgumentException e) {
                LOG.warn("imported data not given to the tuner again: {}", e.getMessage());
            }
        }
        for (PastTrial trial : context.pastTrials()) {
            replay(trial);
        }
    }

    private void replay(PastTrial trial) {
        tried.merge(comparable(trial.parameters()), 1, Integer::sum);
        if (!trial.status().isTerminal()) {
            intermediate.put(trial.trialId(), new ArrayList<>(trial.intermediateResults()));
        }
        if (trial.parameterId().isEmpty()) {
            return;
        }
        long parameterId = trial.parameterId().getAsLong();
        nextParameterId = Math.max(nextParameterId, parameterId + 1);
        if (trial.finalResult().isPresent()) {
            tuner.receiveTrialResult(parameterId, trial.parameters(), trial.finalResult().getAsDouble());
        }
        if (trial.status().isTerminal()) {
            tuner.trialEnd(parameterId, trial.status() == TrialStatus.SUCCEEDED);
        } else {
            given.put(parameterId, trial.parameters());
        }
    }

    @Override
    public void requestTrials(int count) {
        for (int i = 0; i < count && !closed; i++) {
            long parameterId = nextParameterId;
            Optional<Map<String, Object>> parameters = generate(parameterId);
            if (parameters == null) {
                return;
            }
            if (parameters.isEmpty()) {
                context.exhausted();
                return;
            }
            nextParameterId++;
            if (triedBefore(parameters.get())) {
                LOG.info("experiment {}: parameter {} was tried before the experiment was resumed; asking the tuner again",
                        context.experimentId(), parameterId);
                endUnused(parameterId);
                i--;
                continue;
            }
            String packed = json(packed(parameterId, parameters.get(), null, 0));
            given.put(parameterId, asTrialSees(parameters.get()));
            context.newTrial(packed);
        }
    }

    /** @return whether a resumed experiment has a trial of these parameters not passed over yet (and passes it over) */
    private boolean triedBefore(Map<String, Object> parameters) {
        if (tried.isEmpty()) {
            return false;
        }
        JsonNode key = comparable(parameters);
        Integer left = tried.get(key);
        if (left == null) {
            return false;
        }
        if (left == 1) {
            tried.remove(key);
        } else {
            tried.put(key, left - 1);
        }
        return true;
    }

    /** A passed-over parameter id ends unused, so that a tuner that counts its pending ids does not wait for it. */
    private void endUnused(long parameterId) {
        try {
            tuner.trialEnd(parameterId, false);
        } catch (RuntimeException e) {
            fail("the tuner failed on the end of parameter " + parameterId + ": " + e.getMessage(), e);
        }
    }

    /** @return the tuner's next parameters (empty: no more), or null when it failed (the experiment fails) */
    private Optional<Map<String, Object>> generate(long parameterId) {
        try {
            return tuner.generateParameters(parameterId);
        } catch (RuntimeException e) {
            fail("the tuner failed to generate parameters: " + e.getMessage(), e);
            return null;
        }
    }

    @Override
    public void reportMetric(String metric) {
        JsonNode line;
        try {
            line = ResultNumbers.JSON.readTree(metric);
        } catch (JsonProcessingException e) {
            return; // the manager refuses lines that are not JSON before they get here
        }
        String type = line.path("type").asText();
        String trialId = line.path("trial_job_id").asText();
        if ("REQUEST_PARAMETER".equals(type)) {
            requestParameter(trialId, line);
            return;
        }
        Double value = ResultNumbers.value(line.get("value"));
        if (value == null || closed) {
            return;
        }
        try {
            if ("FINAL".equals(type)) {
                Long parameterId = ResultNumbers.parameterId(line.get("parameter_id"));
                if (parameterId != null) {
                    tuner.receiveTrialResult(parameterId, given.getOrDefault(parameterId, Map.of()), value);
                }
            } else if ("PERIODICAL".equals(type) && assessor != null && !ended.contains(trialId)) {
                List<Double> history = intermediate.computeIfAbsent(trialId, id -> new ArrayList<>());
                history.add(value);
                if (assessor.assessTrial(trialId, List.copyOf(history)) == Assessor.Verdict.BAD) {
                    context.killTrial(trialId);
                }
            }
        } catch (RuntimeException e) {
            fail("the " + ("FINAL".equals(type) ? "tuner" : "assessor") + " failed on a metric of trial " + trialId
                    + ": " + e.getMessage(), e);
        }
    }

    /**
     * A running trial asks for its next parameter set (multi-phase), as NNI's dispatcher answers
     * any tuner: a new parameter id, the tuner's next parameters for it (null when it has none).
     */
    private void requestParameter(String trialId, JsonNode line) {
        int index = line.path("parameter_index").asInt(-1);
        if (index < 1) {
            LOG.warn("experiment {}: trial {} asked for parameters without a parameter_index of 1 or more, ignored",
                    context.experimentId(), trialId);
            return;
        }
        long parameterId = nextParameterId++;
        Optional<Map<String, Object>> parameters = generate(parameterId);
        if (parameters != null) {
            parameters.ifPresent(values -> given.put(parameterId, asTrialSees(values)));
            context.sendParameters(json(packed(parameterId, parameters.orElse(null), trialId, index)));
        }
    }

    @Override
    public boolean wantsIntermediateResults() {
        return assessor != null;
    }

    @Override
    public void trialEnded(String trialId, TrialStatus status, String hyperParameters) {
        if (closed) {
            return;
        }
        boolean succeeded = status == TrialStatus.SUCCEEDED;
        intermediate.remove(trialId);
        ended.add(trialId);
        try {
            Long parameterId = ResultNumbers.parameterId(ResultNumbers.JSON.readTree(hyperParameters).get("parameter_id"));
            if (parameterId != null) {
                given.remove(parameterId);
                tuner.trialEnd(parameterId, succeeded);
            }
            if (assessor != null) {
                assessor.trialEnd(trialId, succeeded);
            }
        } catch (JsonProcessingException e) {
            LOG.warn("experiment {}: trial {} ended with parameters that are not JSON: {}", context.experimentId(), trialId,
                    e.getOriginalMessage());
        } catch (RuntimeException e) {
            fail("the tuner failed on the end of trial " + trialId + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void updateSearchSpace(Map<String, Object> searchSpace) {
        try {
            tuner.updateSearchSpace(SearchSpace.parse(searchSpace));
        } catch (SearchSpaceException e) {
            context.refuseChange("searchSpace: " + e.getMessage());
        } catch (IllegalArgumentException e) {
            context.refuseChange(e.getMessage());
        }
    }

    /** Gives the results to the tuner; the first one's answer says whether it uses imported results at all. */
    @Override
    public void importData(String results) {
        List<ImportedResults.Result> parsed = ImportedResults.parse(results);
        if (!parsed.isEmpty() && !tuner.importResult(parsed.get(0).parameters(), parsed.get(0).value())) {
            context.refuseChange("the tuner " + context.tuner().label() + " does not learn from imported results; "
                    + "nothing was imported");
            return;
        }
        parsed.stream().skip(1).forEach(result -> tuner.importResult(result.parameters(), result.value()));
    }

    @Override
    public void close() {
        closed = true; // a Java tuner holds nothing that outlives the experiment
    }

    private void fail(String message, RuntimeException cause) {
        LOG.error("experiment {}: {}", context.experimentId(), message, cause);
        context.failed(message);
    }

    /** @return parameters as JSON read back, so that a stored {@code 3} and a generated {@code 3L} compare equal */
    private static JsonNode comparable(Map<String, Object> parameters) {
        try {
            return ResultNumbers.JSON.readTree(json(parameters));
        } catch (IOException e) {
            return ResultNumbers.JSON.valueToTree(parameters);
        }
    }

    /**
     * @return the parameters as the trial reads them back from its JSON (a generated {@code 3L} is
     *         then an {@code Integer} 3): what the tuner is given with the trial's result, as the
     *         manager gives a resumed trial's
     */
    private static Map<String, Object> asTrialSees(Map<String, Object> parameters) {
        try {
            return ResultNumbers.JSON.readValue(json(parameters), PARAMETERS);
        } catch (JsonProcessingException e) {
            return parameters;
        }
    }

    /** NNI's packed parameter; {@code parameters} null when the tuner had none for a running trial */
    private static Map<String, Object> packed(long parameterId, Map<String, Object> parameters, String trialId, int index) {
        Map<String, Object> packed = new LinkedHashMap<>();
        packed.put("parameter_id", parameterId);
        packed.put("parameter_source", "algorithm");
        packed.put("parameters", parameters);
        packed.put("parameter_index", index);
        if (trialId != null) {
            packed.put("trial_job_id", trialId);
        }
        return packed;
    }

    private static String json(Object value) {
        try {
            return ResultNumbers.JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }
}
