package nni.manager.internal.registry;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import org.junit.Test;

import nni.config.AlgorithmChoice;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.TunerProvider;
import nni.config.AlgorithmConfig;
import nni.tuners.internal.AdvisorProvider;
import nni.tuners.internal.JavaAlgorithmsProvider;
import nni.tuners.internal.MedianstopAssessorProvider;
import nni.tuners.internal.TpeTunerProvider;

/** The choice rule: the Java providers (through nni.tuners' runner) when both have one and the file does not ask otherwise. */
public class AlgorithmChoiceTest {

    private static final DispatcherProvider RUNNER = new JavaAlgorithmsProvider();
    /** Stands in for NNI's dispatcher: runs TPE and Curvefitting; it is never started here. */
    private static final DispatcherProvider PYTHON = new AdvisorProvider();

    private static AlgorithmLookup installed(boolean runner, boolean python) {
        return new AlgorithmLookup() {
            @Override
            public Optional<TunerProvider> tuner(String name) {
                return name.equalsIgnoreCase("TPE") ? Optional.of(new TpeTunerProvider()) : Optional.empty();
            }

            @Override
            public Optional<AssessorProvider> assessor(String name) {
                return name.equalsIgnoreCase("Medianstop") ? Optional.of(new MedianstopAssessorProvider()) : Optional.empty();
            }

            @Override
            public List<String> tunerNames() {
                return List.of("TPE");
            }

            @Override
            public List<String> assessorNames() {
                return List.of("Medianstop");
            }

            @Override
            public Optional<DispatcherProvider> javaRunner() {
                return runner ? Optional.of(RUNNER) : Optional.empty();
            }

            @Override
            public List<AlgorithmRegistry.DispatcherEntry> dispatchers() {
                return python ? List.of(new AlgorithmRegistry.DispatcherEntry(null, PYTHON, Set.of("TPE", "Curvefitting"), true,
                        "python")) : List.of();
            }
        };
    }

    private static AlgorithmConfig section(String name, String implementation) {
        return new AlgorithmConfig(name, null, null, Map.of(), implementation);
    }

    @Test
    public void javaProvidersForBothRunThroughTheRunner() {
        AlgorithmChoice choice = AlgorithmRegistry.choose(section("tpe", null), section("Medianstop", null),
                installed(true, true));
        assertSame(RUNNER, ((AlgorithmChoice.JavaAlgorithms) choice).runner());
        assertSame(RUNNER, AlgorithmChoice.provider(choice));
    }

    @Test
    public void anAssessorOnlyADispatcherHasTakesBothThere() {
        AlgorithmChoice choice = AlgorithmRegistry.choose(section("TPE", null), section("Curvefitting", null),
                installed(true, true));
        assertSame(PYTHON, AlgorithmChoice.provider(choice));
        assertSame(PYTHON, AlgorithmChoice.provider(AlgorithmRegistry.choose(section("TPE", "python"), null,
                installed(true, true))));
    }

    @Test
    public void withoutTheRunnerAnotherProviderRunsThemElseTheRefusalSaysWhatIsMissing() {
        assertSame(PYTHON, AlgorithmChoice.provider(AlgorithmRegistry.choose(section("TPE", null), null, installed(false, true))));
        for (AlgorithmConfig tuner : List.of(section("TPE", null), section("TPE", "java"))) {
            AlgorithmChoice.Unavailable missing = (AlgorithmChoice.Unavailable) AlgorithmRegistry.choose(tuner, null,
                    installed(false, false));
            assertEquals("tuner.name", missing.path());
            assertTrue(missing.message(), missing.message().contains("bundle nni.tuners, which is not installed"));
        }
    }
}
