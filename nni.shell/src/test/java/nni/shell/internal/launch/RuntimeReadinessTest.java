package nni.shell.internal.launch;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.Map;

import org.junit.Test;

import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.TunerProvider;

/**
 * Which algorithm services a command waits for the engine to bind: a command run before the
 * runner of the Java providers was bound had a Java tuner's experiment refused as having none
 * (exit 2 under load), since a service without algorithm names counted as bound at once.
 */
public class RuntimeReadinessTest {

    @Test
    public void theRunnerOfTheJavaProvidersIsWaitedForThoughItNamesNoAlgorithm() {
        assertTrue(RuntimeReadiness.chosenByTheEngine(Map.<String, Object>of(DispatcherProvider.RUNS_PROVIDERS, true)::get));
        assertTrue(RuntimeReadiness.chosenByTheEngine(Map.<String, Object>of(DispatcherProvider.RUNS_PROVIDERS, "true")::get));
    }

    @Test
    public void aProviderNamingAlgorithmsIsWaitedFor() {
        assertTrue(RuntimeReadiness.chosenByTheEngine(Map.<String, Object>of(TunerProvider.ALGORITHM, new String[] {"TPE"})::get));
    }

    @Test
    public void aProviderTheEngineDoesNotChooseIsNotWaitedFor() {
        assertFalse(RuntimeReadiness.chosenByTheEngine(Map.<String, Object>of()::get));
        assertFalse(RuntimeReadiness.chosenByTheEngine(Map.<String, Object>of(DispatcherProvider.RUNS_PROVIDERS, false)::get));
    }
}
