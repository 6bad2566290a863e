package nni.tuners.internal;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigProblem;
import nni.api.tuner.Algorithm;
import nni.api.tuner.Assessor;
import nni.api.tuner.AssessorProvider;

/**
 * NNI's Medianstop assessor (the median stopping rule of Google Vizier): a trial is stopped at step
 * {@code s} when its best value so far is worse than the median of the running averages at step
 * {@code s} of the trials that completed successfully. classArgs: {@code optimize_mode}
 * ({@code maximize}), {@code start_step} (0).
 */
@Component(service = AssessorProvider.class)
@Algorithm("Medianstop")
public class MedianstopAssessorProvider implements AssessorProvider {

    @Override
    public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        args.minimize("maximize");
        args.integer("start_step", 0L, 0, Integer.MAX_VALUE);
        return args.problems();
    }

    @Override
    public Assessor create(Map<String, Object> classArgs) {
        ClassArgs args = new ClassArgs(classArgs);
        return new MedianstopAssessor(!args.minimize("maximize"), args.integer("start_step", 0L, 0, Integer.MAX_VALUE));
    }

    static final class MedianstopAssessor implements Assessor {
        private final boolean maximize;
        private final long startStep;
        private final Map<String, List<Double>> running = new HashMap<>();
        private final List<List<Double>> completed = new ArrayList<>();

        MedianstopAssessor(boolean maximize, long startStep) {
            this.maximize = maximize;
            this.startStep = startStep;
        }

        @Override
        public Verdict assessTrial(String trialId, List<Double> history) {
            int step = history.size();
            if (step < startStep) {
                return Verdict.GOOD;
            }
            running.put(trialId, List.copyOf(history));
            double best = maximize ? history.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN)
                    : history.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
            List<Double> averages = new ArrayList<>();
            for (List<Double> curve : completed) {
                if (step > 0 && curve.size() >= step) {
                    averages.add(curve.get(step - 1));
                }
            }
            if (averages.isEmpty()) {
                return Verdict.GOOD;
            }
            averages.sort(null);
            int n = averages.size();
            if (maximize) {
                return best < averages.get((n - 1) / 2) ? Verdict.BAD : Verdict.GOOD;
            }
            return best > averages.get(n / 2) ? Verdict.BAD : Verdict.GOOD;
        }

        @Override
        public void trialEnd(String trialId, boolean succeeded) {
            List<Double> history = running.remove(trialId);
            if (history == null || !succeeded) {
                return;
            }
            List<Double> averages = new ArrayList<>();
            double sum = 0;
            for (int i = 0; i < history.size(); i++) {
                sum += history.get(i);
                averages.add(sum / (i + 1));
            }
            completed.add(averages);
        }
    }
}
