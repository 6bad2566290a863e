package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.api.tuner.Tuner;

/**
 * The experiment's database failing under the experiment's thread (a full disk, a broken file)
 * fails the experiment with the store's message; no trial is left WAITING for a submit that never
 * comes.
 */
public class StoreFailureTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void tearDown() {
        if (experiment != null) {
            experiment.detach();
        }
    }

    @Test
    public void aStoreFailureOnTheExperimentThreadFailsTheExperimentWithTheStoresMessage() throws Exception {
        Experiments experiments = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("work").toPath());
        experiments.maxTrials = 3;
        AtomicReference<Experiment> started = new AtomicReference<>();
        // the database breaks while the second trial is being drawn: its WAITING event cannot be stored
        Tuner tuner = new Tuner() {
            @Override
            public Optional<Map<String, Object>> generateParameters(long parameterId) {
                if (parameterId == 1) {
                    started.get().store().close();
                }
                return Optional.of(Map.of("x", parameterId));
            }

            @Override
            public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            }
        };
        AtomicReference<HeldSession> session = new AtomicReference<>();
        experiment = experiments.startWith("storefail", tuner, context -> {
            session.set(new HeldSession(context));
            return session.get();
        });
        started.set(experiment);

        session.get().finish(session.get().trials().get(0).id(), List.of(), null, TrialStatus.SUCCEEDED);

        assertEquals(ExperimentStatus.ERROR, experiment.settled().get(30, TimeUnit.SECONDS));
        assertEquals(ExperimentStatus.ERROR, experiment.status());
        assertTrue(experiment.errors().toString(), experiment.errors().stream()
                .anyMatch(error -> error.startsWith("cannot store event WAITING of trial")));
        assertTrue("no trial waits for a submit that never comes: " + experiment.trials(),
                experiment.trials().stream().noneMatch(trial -> trial.job().status() == TrialStatus.WAITING));
        assertEquals("the tuner drew no more after the failure", 1, session.get().trials().size());
    }
}
