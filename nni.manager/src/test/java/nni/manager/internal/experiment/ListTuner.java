package nni.manager.internal.experiment;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import nni.api.tuner.Tuner;

/** A deterministic tuner for tests: parameter set k is {"x": k}; it records what it was told. */
public final class ListTuner implements Tuner {

    public final Map<Long, Double> results = new ConcurrentHashMap<>();
    final Map<Long, Boolean> ended = new ConcurrentHashMap<>();
    private final int limit;

    public ListTuner(int limit) {
        this.limit = limit;
    }

    @Override
    public Optional<Map<String, Object>> generateParameters(long parameterId) {
        return parameterId < limit ? Optional.of(Map.of("x", parameterId)) : Optional.empty();
    }

    @Override
    public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
        results.put(parameterId, value);
    }

    @Override
    public void trialEnd(long parameterId, boolean succeeded) {
        ended.put(parameterId, succeeded);
    }
}
