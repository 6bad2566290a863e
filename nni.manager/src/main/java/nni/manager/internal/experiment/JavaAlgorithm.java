package nni.manager.internal.experiment;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.model.TrialStatus;
import nni.api.searchspace.SearchSpace;
import nni.api.searchspace.SearchSpaceException;
import nni.api.tuner.Assessor;
import nni.api.tuner.Tuner;

/**
 * A Java {@link Tuner} and optional {@link Assessor} as an experiment's {@link Algorithm}: every
 * request is answered at once, on the experiment's thread. Parameter ids are 0, 1, 2, ... in the
 * order asked, continuing after a resumed experiment's.
 */
final class JavaAlgorithm implements Algorithm {

    private static final Logger LOG = LoggerFactory.getLogger(JavaAlgorithm.class);

    private final Tuner tuner;
    private final Assessor assessor;
    private Host host;
    private long nextParameterId;
    /**
     * Resume history (issue 25): the parameter sets a resumed experiment's trials have, each as many
     * times as trials have it. A new tuner (a seeded one above all) may draw them again; each is
     * passed over once instead of becoming a second trial.
     */
    private final Map<JsonNode, Integer> tried = new HashMap<>();

    /** @param assessor the assessor, or null */
    JavaAlgorithm(Tuner tuner, Assessor assessor) {
        this.tuner = tuner;
        this.assessor = assessor;
    }

    /** Replays a resumed experiment's imported data and finished results into the new tuner. */
    @Override
    public void start(Host host, boolean resuming, List<Trial> history, List<String> imported) {
        this.host = host;
        for (String data : imported) {
            try {
                ImportedResults.parse(data).forEach(result -> tuner.importResult(result.parameters(), result.value()));
            } catch (RuntimeException e) {
                LOG.warn("imported data not given to the tuner again: {}", e.getMessage());
            }
        }
        for (Trial trial : history) {
            if (trial.parameters != null) {
                tried.merge(comparable(trial.parameters), 1, Integer::sum);
            }
            if (trial.parameterId instanceof Number number) {
                nextParameterId = Math.max(nextParameterId, number.longValue() + 1);
                if (trial.finalValue != null) {
                    tuner.receiveTrialResult(number.longValue(), trial.parameters, trial.finalValue);
                }
                if (trial.job.status().isTerminal()) {
                    tuner.trialEnd(number.longValue(), trial.job.status() == TrialStatus.SUCCEEDED);
                }
            }
        }
    }

    @Override
    public void request(int count) {
        for (int i = 0; i < count; i++) {
            long parameterId = nextParameterId;
            Optional<Map<String, Object>> parameters = generate(parameterId);
            if (parameters == null) {
                return;
            }
            if (parameters.isEmpty()) {
                host.noMoreTrials(true);
                return;
            }
            nextParameterId++;
            if (triedBefore(parameters.get())) {
                LOG.info("parameter {} was tried before the experiment was resumed; asking the tuner again", parameterId);
                endUnused(parameterId);
                i--;
                continue;
            }
            host.offer(Experiment.json(packed(parameterId, parameters.get(), null, 0)));
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
            host.fail("the tuner failed on the end of parameter " + parameterId + ": " + e.getMessage(), e);
        }
    }

    /** @return parameters as JSON read back, so that a stored {@code 3} and a generated {@code 3L} compare equal */
    private static JsonNode comparable(Map<String, Object> parameters) {
        try {
            return Experiment.JSON.readTree(Experiment.json(parameters));
        } catch (java.io.IOException e) {
            return Experiment.JSON.valueToTree(parameters);
        }
    }

    /** @return the tuner's next parameters (empty: no more), or null when it failed (the experiment fails) */
    private Optional<Map<String, Object>> generate(long parameterId) {
        try {
            return tuner.generateParameters(parameterId);
        } catch (RuntimeException e) {
            host.fail("the tuner failed to generate parameters: " + e.getMessage(), e);
            return null;
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

    /**
     * A running trial asks for its next parameter set (multi-phase), as NNI's dispatcher answers
     * any tuner: a new parameter id, the tuner's next parameters for it (null when it has none).
     */
    private void requestParameter(Trial trial, String line) {
        int index;
        try {
            index = Experiment.JSON.readTree(line).path("parameter_index").asInt(-1);
        } catch (java.io.IOException e) {
            return; // the intake refuses lines that are not JSON
        }
        if (index < 1) {
            LOG.warn("trial {} asked for parameters without a parameter_index of 1 or more, ignored", trial.id);
            return;
        }
        long parameterId = nextParameterId++;
        Optional<Map<String, Object>> parameters = generate(parameterId);
        if (parameters != null) {
            host.sendParameters(Experiment.json(packed(parameterId, parameters.orElse(null), trial.id, index)));
        }
    }

    @Override
    public void metric(Trial trial, String type, Double value, String line) {
        if ("REQUEST_PARAMETER".equals(type)) {
            requestParameter(trial, line);
            return;
        }
        if (value == null) {
            return;
        }
        try {
            if ("FINAL".equals(type)) {
                if (trial.parameterId instanceof Number number) {
                    tuner.receiveTrialResult(number.longValue(), trial.parameters, value);
                }
            } else if ("PERIODICAL".equals(type) && assessor != null && !trial.job.status().isTerminal()
                    && assessor.assessTrial(trial.id, trial.intermediate.toList()) == Assessor.Verdict.BAD) {
                host.kill(trial.id);
            }
        } catch (RuntimeException e) {
            host.fail("the " + ("FINAL".equals(type) ? "tuner" : "assessor") + " failed on a metric of trial " + trial.id
                    + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void trialEnded(Trial trial, TrialStatus status) {
        boolean succeeded = status == TrialStatus.SUCCEEDED;
        try {
            if (trial.parameterId instanceof Number number) {
                tuner.trialEnd(number.longValue(), succeeded);
            }
            if (assessor != null) {
                assessor.trialEnd(trial.id, succeeded);
            }
        } catch (RuntimeException e) {
            host.fail("the tuner failed on the end of trial " + trial.id + ": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean importData(List<ImportedResults.Result> results, String json) {
        if (!results.isEmpty() && !tuner.importResult(results.get(0).parameters(), results.get(0).value())) {
            return false;
        }
        results.stream().skip(1).forEach(result -> tuner.importResult(result.parameters(), result.value()));
        return true;
    }

    @Override
    public void updateSearchSpace(Map<String, Object> searchSpace) {
        try {
            tuner.updateSearchSpace(SearchSpace.parse(searchSpace));
        } catch (SearchSpaceException e) {
            throw new IllegalArgumentException("searchSpace: " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        // a Java tuner holds nothing that outlives the experiment
    }
}
