package nni.manager.internal.experiment;

import java.util.List;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Assessor;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.Tuner;
import nni.tuners.internal.JavaAlgorithmRun;

/**
 * A test's or benchmark's own tuner and assessor objects, run as the runtime runs every Java algorithm: by
 * nni.tuners' {@link JavaAlgorithmRun} behind a dispatcher provider, spoken to through the
 * experiment's one {@link DispatcherAlgorithm}.
 */
final class JavaRuns {

    private JavaRuns() {
    }

    /** @param assessor the assessor, or null */
    static Algorithm of(Experiment experiment, Tuner tuner, Assessor assessor) {
        return new DispatcherAlgorithm(provider(tuner, assessor), experiment.id(), experiment.directory(), experiment.config());
    }

    /** @return a provider whose one run is of these objects */
    static DispatcherProvider provider(Tuner tuner, Assessor assessor) {
        return new DispatcherProvider() {
            @Override
            public List<ConfigProblem> checkAlgorithms(AlgorithmSection tunerSection, AlgorithmSection assessorSection) {
                return List.of();
            }

            @Override
            public List<ConfigProblem> checkSearchSpace(AlgorithmSection tunerSection, Object searchSpace) {
                return SearchSpace.check(searchSpace);
            }

            @Override
            public String runsThrough() {
                return "the test's own tuner";
            }

            @Override
            public Dispatcher start(DispatcherContext context) {
                return new JavaAlgorithmRun(context, tuner, assessor);
            }
        };
    }
}
