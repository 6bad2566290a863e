package nni.manager.internal.experiment;

import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import nni.api.tuner.Assessor;
import nni.api.tuner.Tuner;
import nni.config.AlgorithmConfig;
import nni.config.ExperimentConfig;
import nni.ts.local.internal.LocalPlatform;

/**
 * Builds experiments on the real local platform for tests, without a config file (public for the
 * tests of other packages).
 */
public final class Experiments {

    public String trialCommand = "python3 trial.py";
    public Path codeDirectory;
    public Path workingDirectory;
    public int concurrency = 1;
    public Integer maxTrials;
    public Duration maxTrialDuration;
    public Duration maxExperimentDuration;
    public Integer gpus;
    public final Map<String, Object> section = new LinkedHashMap<>();
    public final Map<String, Object> platformSettings = new HashMap<>();

    public Experiments(Path codeDirectory, Path workingDirectory) {
        this.codeDirectory = codeDirectory;
        this.workingDirectory = workingDirectory;
        platformSettings.put("kill_grace_seconds", 2);
        platformSettings.put("python_sdk", "always");
    }

    public ExperimentConfig config() {
        Map<String, Object> service = new LinkedHashMap<>();
        service.put("platform", "local");
        service.put("trialCommand", trialCommand);
        service.put("trialCodeDirectory", codeDirectory.toString());
        if (gpus != null) {
            service.put("trialGpuNumber", gpus);
        }
        service.putAll(section);
        Map<String, Object> canonical = new LinkedHashMap<>();
        canonical.put("trialCommand", trialCommand);
        canonical.put("trialConcurrency", concurrency);
        return new ExperimentConfig("test", Map.of("x", Map.of("_type", "randint", "_value", java.util.List.of(0, 1000))),
                trialCommand, codeDirectory, concurrency, gpus, maxExperimentDuration, maxTrials, maxTrialDuration, null,
                false, "info", workingDirectory, new AlgorithmConfig("ListTuner", null, null, Map.of()), null,
                java.util.List.of(service), canonical, java.util.List.of());
    }

    /** @return {@link #config()} as a hybrid experiment: one member per platform name, each with {@link #section}'s settings */
    public ExperimentConfig hybridConfig(String... platforms) {
        ExperimentConfig single = config();
        List<Map<String, Object>> services = new java.util.ArrayList<>();
        for (String platform : platforms) {
            Map<String, Object> service = new LinkedHashMap<>(single.trainingServices().get(0));
            service.put("platform", platform);
            services.add(service);
        }
        return new ExperimentConfig(single.experimentName(), single.searchSpace(), single.trialCommand(),
                single.trialCodeDirectory(), single.trialConcurrency(), single.trialGpuNumber(), single.maxExperimentDuration(),
                single.maxTrialNumber(), single.maxTrialDuration(), single.nniManagerIp(), single.debug(), single.logLevel(),
                single.experimentWorkingDirectory(), single.tuner(), single.assessor(), services, single.canonical(), single.secrets());
    }

    public LocalPlatform platform() {
        Map<String, Object> settings = platformSettings;
        LocalPlatform.Config config = (LocalPlatform.Config) Proxy.newProxyInstance(Experiments.class.getClassLoader(),
                new Class<?>[] {LocalPlatform.Config.class}, (proxy, method, args) -> {
                    if (settings.containsKey(method.getName())) {
                        return settings.get(method.getName());
                    }
                    Object fallback = method.getDefaultValue();
                    if (fallback != null) {
                        return fallback;
                    }
                    return switch (method.getName()) {
                        case "annotationType" -> LocalPlatform.Config.class;
                        case "hashCode" -> 0;
                        case "toString" -> "Config" + settings;
                        default -> throw new UnsupportedOperationException(method.getName());
                    };
                });
        return new LocalPlatform(config);
    }

    /** Creates and starts an experiment with the given tuner and assessor (may be null). */
    public Experiment start(String id, Tuner tuner, Assessor assessor) throws Exception {
        Experiment experiment = Experiment.create(id, config());
        LocalPlatform platform = platform();
        experiment.start(JavaRuns.of(experiment, tuner, assessor), platform::open);
        return experiment;
    }

    /**
     * Creates and starts an experiment of a loaded config: its local members on the local platform,
     * any other member on a {@link HeldSession} (the first trial goes to the first member).
     */
    public Experiment start(String id, ExperimentConfig config, Tuner tuner) throws Exception {
        Experiment experiment = Experiment.create(id, config);
        experiment.start(JavaRuns.of(experiment, tuner, null), members(platform()));
        return experiment;
    }

    /** @return the local platform for local members, a {@link HeldSession} for the others */
    private static TrialScheduler.SessionOpener members(LocalPlatform platform) {
        return member -> "local".equals(member.platform()) ? platform.open(member) : new HeldSession(member);
    }

    /** Resumes a stopped or crashed experiment. */
    public Experiment resume(String id, Tuner tuner) throws Exception {
        Experiment experiment = Experiment.reopen(id, workingDirectory.resolve(id));
        experiment.resume(JavaRuns.of(experiment, tuner, null), members(platform()));
        return experiment;
    }


    /**
     * Creates and starts an experiment whose trials go to a session the test provides (its own
     * platform), which reports back through the context it is given.
     */
    public Experiment startWith(String id, Tuner tuner,
                                java.util.function.Function<nni.api.platform.SessionContext, nni.api.platform.TrainingSession> sessions)
            throws Exception {
        Experiment experiment = Experiment.create(id, config());
        experiment.start(JavaRuns.of(experiment, tuner, null), sessions::apply);
        return experiment;
    }
}
