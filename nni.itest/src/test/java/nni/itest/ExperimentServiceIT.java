package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceRegistration;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentListener;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.ExperimentUpdate;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.TrialInfo;
import nni.api.model.TrialStatus;

/**
 * {@code nni.api.experiment} in the real runtime: the manager registers the {@link ExperimentService};
 * a listener registered as a service (the whiteboard) is told of trial changes; the service's
 * refusals are values of the kind a face maps.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ExperimentServiceIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("service-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    @Test(timeout = 240_000)
    public void aWhiteboardListenerHearsTrialsAndRefusalsAreValues() throws Exception {
        await().atMost(WAIT).until(() -> service(ExperimentService.class, null) != null);
        ExperimentService experiments = service(ExperimentService.class, null);
        List<TrialInfo> heard = new CopyOnWriteArrayList<>();
        List<String> closed = new CopyOnWriteArrayList<>();
        List<ExperimentInfo> changed = new CopyOnWriteArrayList<>();
        List<String> deleted = new CopyOnWriteArrayList<>();
        ServiceRegistration<ExperimentListener> registration = context.registerService(ExperimentListener.class,
                new ExperimentListener() {
                    @Override
                    public void trialChanged(TrialInfo trial) {
                        heard.add(trial);
                    }

                    @Override
                    public void experimentClosed(String experimentId, boolean stopped) {
                        closed.add(experimentId + (stopped ? " stopped" : " detached"));
                    }

                    @Override
                    public void experimentChanged(ExperimentInfo experiment) {
                        changed.add(experiment);
                    }

                    @Override
                    public void experimentDeleted(String experimentId) {
                        deleted.add(experimentId);
                    }
                }, null);
        try {
            Path root = Path.of(context.getProperty("nni.it.root"));
            Path code = Files.createDirectories(root.resolve("code"));
            Files.writeString(code.resolve("trial.sh"), """
                    m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "0.5"}'
                    echo "NNISDK_MEb'$m'"
                    """);
            Path config = code.resolve("config.yml");
            Files.writeString(config, """
                    experimentName: service-it
                    searchSpace:
                      x: {_type: choice, _value: [1, 2]}
                    trialCommand: bash trial.sh
                    trialCodeDirectory: .
                    trialConcurrency: 1
                    maxTrialNumber: 1
                    tuner:
                      name: GridSearch
                    trainingService:
                      platform: local
                    """);

            Refusal badConfig = refusal(experiments.create(code.resolve("none.yml")));
            assertEquals(Refusal.Kind.INVALID, badConfig.kind());
            assertTrue(badConfig.message(), badConfig.message().contains("none.yml"));

            List<String> announced = new java.util.concurrent.CopyOnWriteArrayList<>();
            ExperimentInfo created = experiments.create(config, (told, directory) -> announced.add(told + " " + directory)).value();
            String id = created.id();
            // told before it existed, and created from its file, which it keeps
            assertEquals(List.of(id + " " + created.directory()), announced);
            try (var reading = experiments.read(id).value()) {
                assertEquals("config.yml", reading.givenConfig().orElseThrow().fileName());
            }
            assertEquals("DONE", experiments.settled(id).value().toCompletableFuture().get(WAIT.toSeconds(), java.util.concurrent.TimeUnit.SECONDS));
            await().atMost(WAIT).until(() -> heard.stream().anyMatch(t -> t.experimentId().equals(id)
                    && t.job().status() == TrialStatus.SUCCEEDED));
            TrialInfo trial = heard.stream().filter(t -> t.job().status() == TrialStatus.SUCCEEDED).findFirst().orElseThrow();
            assertTrue("the listener heard the trial before it ended: " + heard, heard.stream().anyMatch(t ->
                    t.job().id().equals(trial.job().id()) && t.job().status() != TrialStatus.SUCCEEDED));
            assertEquals(List.of(trial.job().id()), experiments.trials(id).value().stream().map(t -> t.job().id()).toList());
            assertEquals(1, experiments.get(id).value().maxTrialNumber().orElseThrow().intValue());
            assertEquals(Path.of(context.getProperty("nni.experiments.dir")), experiments.root());
            ExperimentInfo told = changed.stream().filter(e -> e.id().equals(id)).findFirst().orElseThrow();
            assertEquals(Optional.of("service-it"), told.name());
            assertEquals(Optional.of("local"), told.platform());
            Path registry = experiments.root().resolve(".experiment");
            await("NNI's registry lists the experiment").atMost(WAIT).until(() -> Files.isRegularFile(registry)
                    && Files.readString(registry).contains("\"" + id + "\""));
            assertEquals(Refusal.Kind.CONFLICT, refusal(experiments.delete(id)).kind());

            assertEquals(Refusal.Kind.NOT_FOUND, refusal(experiments.get("nosuch00")).kind());
            assertEquals(Refusal.Kind.NOT_FOUND, refusal(experiments.cancelTrial(id, "nosuchtr")).kind());
            assertEquals(Refusal.Kind.NOT_FOUND, refusal(experiments.metrics(id, "nosuchtr")).kind());
            Refusal notData = refusal(experiments.importData(id, "{}"));
            assertEquals(Refusal.Kind.INVALID, notData.kind());
            assertEquals(Refusal.Kind.CONFLICT, refusal(experiments.resume(id)).kind());

            ExperimentInfo stopped = experiments.stop(id).value();
            assertEquals(id, stopped.id());
            await().atMost(WAIT).until(() -> closed.contains(id + " stopped"));
            assertEquals(Refusal.Kind.NOT_FOUND, refusal(experiments.update(id,
                    ExperimentUpdate.of(ExperimentUpdate.TRIAL_CONCURRENCY, 2).value())).kind());

            ExperimentInfo viewed = experiments.view(id).value();
            assertTrue(viewed.readOnly());
            Refusal readOnly = refusal(experiments.update(id, ExperimentUpdate.of(ExperimentUpdate.TRIAL_CONCURRENCY, 2).value()));
            assertEquals(Refusal.Kind.CONFLICT, readOnly.kind());
            assertTrue(readOnly.message(), readOnly.message().contains("read-only"));
            assertTrue(experiments.stop(id).isDone());

            assertEquals(Refusal.Kind.NOT_FOUND, refusal(experiments.delete("nosuch00")).kind());
            assertEquals(experiments.root().resolve(id), experiments.delete(id).value());
            assertFalse(Files.exists(experiments.root().resolve(id)));
            assertEquals("the listener was told of the deletion before it was answered", List.of(id), deleted);
            assertFalse("NNI's registry still lists the deleted experiment: " + Files.readString(registry),
                    Files.readString(registry).contains("\"" + id + "\""));
        } finally {
            registration.unregister();
        }
    }

    private static Refusal refusal(Outcome<?> outcome) {
        assertFalse("expected a refusal, got " + outcome, outcome.isDone());
        return outcome.refusal().orElseThrow();
    }
}
