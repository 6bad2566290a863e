package nni.example.echo.internal;

import java.io.InputStream;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.Platform;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * A platform that runs nothing: each trial "runs" at once, reports its parameter text back as one
 * FINAL metric and succeeds. Trials whose parameters contain {@code "hold"} stay RUNNING until
 * cancelled, so tests can watch what happens to running trials; a later session takes them back
 * ({@code reattach}) by their handle {@code echo:<id>}. Every trial runs on host {@value #HOST}. The
 * section may hold a secret, {@code echoToken}, which the platform reads as a real one would.
 */
@Component(service = TrainingPlatform.class, configurationPid = "nni.example.echo")
@Platform("echo")
@Designate(ocd = EchoPlatform.Config.class)
public class EchoPlatform implements TrainingPlatform {

    @ObjectClassDefinition(name = "Echo test platform")
    public @interface Config {
        @AttributeDefinition(description = "The value reported as every trial's final metric")
        double final_value() default 0.5;
    }

    static final String HOST = "echo-host";

    private final Config config;

    @Activate
    public EchoPlatform(Config config) {
        this.config = config;
    }

    @Override
    public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
        ConfigReader reader = ConfigReader.of(section, baseDirectory);
        reader.trainingServiceFields(false);
        // a secret, as a cluster's token would be: masked by the manager, real in the session's section
        reader.secret("echoToken", false);
        if (reader.has("echoFails")) {
            reader.any("echoFails");
            reader.problem("echoFails", "expected nothing here, the echo platform refuses this key");
        }
        return reader.check();
    }

    @Override
    public TrainingSession open(SessionContext context) {
        return new EchoSession(context, config.final_value());
    }

    private static final class EchoSession implements TrainingSession {
        private final SessionContext context;
        private final double value;
        private final Map<String, TrialJob> trials = new ConcurrentHashMap<>();
        private final List<String> order = new CopyOnWriteArrayList<>();

        EchoSession(SessionContext context, double value) {
            this.context = context;
            this.value = value;
        }

        @Override
        public TrialJob submit(TrialApplication application) {
            TrialJob running = TrialJob.waiting(application, "", "echo:" + application.trialId()).toBuilder()
                    .handle("echo:" + application.trialId()).host(HOST).attribute("runs", "nothing").build().running(Instant.now());
            trials.put(running.id(), running);
            order.add(running.id());
            context.trialChanged(running);
            if (!application.hyperParameters().value().contains("hold")) {
                context.metricReported(running.id(), "{\"parameter_id\": " + application.sequenceId()
                        + ", \"trial_job_id\": \"" + running.id() + "\", \"type\": \"FINAL\", \"sequence\": 0, \"value\": \""
                        + value + "\"}");
                end(running.id(), TrialStatus.SUCCEEDED);
            }
            return trials.get(running.id());
        }

        private void end(String trialId, TrialStatus status) {
            TrialJob ended = trials.computeIfPresent(trialId,
                    (id, trial) -> trial.status().isTerminal() ? trial : trial.ended(status, Instant.now(), "echo"));
            if (ended != null) {
                context.trialChanged(ended);
            }
        }

        @Override
        public void cancel(String trialId, boolean earlyStopped) {
            TrialJob trial = trials.get(trialId);
            if (trial != null && !trial.status().isTerminal()) {
                end(trialId, TrialStatus.cancelled(earlyStopped));
            }
        }

        @Override
        public Optional<TrialJob> trial(String trialId) {
            return Optional.ofNullable(trials.get(trialId));
        }

        @Override
        public List<TrialJob> trials() {
            return order.stream().map(trials::get).toList();
        }

        @Override
        public Optional<InputStream> openTrialFile(String trialId, String name) {
            return Optional.empty();
        }

        /** A held trial is still "running" wherever the echo platform runs it: tracked again, RUNNING. */
        @Override
        public Optional<TrialJob> reattach(TrialJob trial) {
            if (!trial.handle().equals("echo:" + trial.id()) || !trial.hyperParameters().value().contains("hold")) {
                return Optional.empty();
            }
            TrialJob running = trial.toBuilder().message("").build();
            trials.put(running.id(), running);
            order.add(running.id());
            return Optional.of(running);
        }

        @Override
        public void close() {
            order.forEach(id -> cancel(id, false));
        }

        @Override
        public void detach() {
            // nothing runs, nothing to release; the held trials stay "running"
        }
    }
}
