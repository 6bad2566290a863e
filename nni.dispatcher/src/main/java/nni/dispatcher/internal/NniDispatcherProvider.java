package nni.dispatcher.internal;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.config.ConfigProblem;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherException;
import nni.api.tuner.DispatcherProvider;

/**
 * Every algorithm of NNI's {@code nni} package, and custom algorithm classes, through NNI's own
 * dispatcher: {@code python3 -m nni --exp_params <base64 JSON>} with NNI's environment, in the
 * experiment's {@code log/} folder, its output in {@code log/dispatcher.log}, talking over a
 * WebSocket channel on the runtime's HTTP port ({@link TunerChannels}). The installed nni's version
 * decides the framing ({@link Framing}); a missing {@code nni} package is named at once.
 */
// the names are KnownAlgorithms.names() (KnownAlgorithmsTest holds them together)
@Component(service = DispatcherProvider.class, configurationPid = "nni.dispatcher",
        property = {DispatcherProvider.CLASSES + ":Boolean=true", DispatcherProvider.IMPLEMENTATION + "=python",
                "nni.algorithm=TPE",
                "nni.algorithm=TPE_legacy",
                "nni.algorithm=Random",
                "nni.algorithm=Anneal",
                "nni.algorithm=Evolution",
                "nni.algorithm=GridSearch",
                "nni.algorithm=Batch",
                "nni.algorithm=BatchTuner",
                "nni.algorithm=SMAC",
                "nni.algorithm=Metis",
                "nni.algorithm=MetisTuner",
                "nni.algorithm=GP",
                "nni.algorithm=GPTuner",
                "nni.algorithm=PBT",
                "nni.algorithm=PBTTuner",
                "nni.algorithm=DNGO",
                "nni.algorithm=DNGOTuner",
                "nni.algorithm=Hyperband",
                "nni.algorithm=BOHB",
                "nni.algorithm=NetworkMorphism",
                "nni.algorithm=PPO",
                "nni.algorithm=PPOTuner",
                "nni.algorithm=RegularizedEvolutionTuner",
                "nni.algorithm=Medianstop",
                "nni.algorithm=Curvefitting"})
@Designate(ocd = NniDispatcherProvider.Config.class)
public class NniDispatcherProvider implements DispatcherProvider {

    @ObjectClassDefinition(name = "NNI's dispatcher", description = "Runs NNI's tuners, assessors and advisors, and custom"
            + " algorithm classes, in NNI's own dispatcher process")
    public @interface Config {
        @AttributeDefinition(description = "the Python interpreter that has the nni package (a name looked up on PATH,"
                + " after the experiment's pythonPath, or a path); empty: $" + PYTHON_VARIABLE + ", else python3")
        String python_command() default "";

        @AttributeDefinition(description = "how long the dispatcher may take to connect (or to come back after losing its channel)")
        int connect_seconds() default 60;

        @AttributeDefinition(description = "how long the dispatcher may stay silent (no answer to pings) before it is given up")
        int silence_seconds() default 30;

        @AttributeDefinition(description = "how often the dispatcher is pinged")
        int ping_seconds() default 5;

        @AttributeDefinition(description = "how long a stopped dispatcher may take to end before it is killed")
        int stop_seconds() default 10;

        @AttributeDefinition(description = "how long the dispatcher may owe trials it was asked for while using almost no"
                + " CPU (its algorithm is stuck) before it is given up")
        int answer_seconds() default 20;
    }

    /** The environment variable naming the interpreter when {@code python.command} is not configured. */
    static final String PYTHON_VARIABLE = "NNI_OSGI_PYTHON";

    private static final Logger LOG = LoggerFactory.getLogger(NniDispatcherProvider.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration PROBE_PATIENCE = Duration.ofSeconds(60);

    private final Config config;
    private final TunerChannels channels;
    private final ScheduledExecutorService scheduler;
    private final Set<DispatcherRun> runs = ConcurrentHashMap.newKeySet();

    @Activate
    public NniDispatcherProvider(Config config, @Reference TunerChannels channels) {
        this.config = config;
        this.channels = channels;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "nni-dispatchers");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** The runtime or this bundle goes away: no dispatcher outlives it (a resumed experiment starts a new one). */
    @Deactivate
    void deactivate() {
        runs.forEach(DispatcherRun::kill);
        scheduler.shutdownNow();
    }

    @Override
    public List<ConfigProblem> checkAlgorithms(AlgorithmSection tuner, AlgorithmSection assessor) {
        return KnownAlgorithms.checkSections(tuner, assessor);
    }

    @Override
    public List<ConfigProblem> checkSearchSpace(AlgorithmSection tuner, Object searchSpace) {
        return KnownAlgorithms.checkSearchSpace(tuner, searchSpace);
    }

    @Override
    public String runsThrough() {
        return "NNI's dispatcher (needs the nni package)";
    }

    @Override
    public Dispatcher start(DispatcherContext context) throws DispatcherException {
        Path directory = context.experimentDirectory();
        Map<String, Object> experiment = context.experimentConfig();
        String algorithm = "tuner " + context.tuner().label()
                + context.assessor().map(a -> " with assessor " + a.label()).orElse("");
        ProcessBuilder builder = new ProcessBuilder().directory(directory.resolve("log").toFile());
        String path = searchPath(experiment, builder.environment().get("PATH"));
        builder.environment().put("PATH", path);
        String python = interpreter(path, algorithm);
        String version = nniVersion(python, directory, algorithm, builder);
        Framing framing = Framing.forVersion(version);
        boolean includeIntermediate = includeIntermediateResults(experiment);
        DispatcherRun run = new DispatcherRun(context, framing, includeIntermediate
                || KnownAlgorithms.wantsIntermediateResults(context.tuner(), context.assessor().orElse(null)),
                new DispatcherRun.Timing(Duration.ofSeconds(config.connect_seconds()), Duration.ofSeconds(config.silence_seconds()),
                        Duration.ofSeconds(config.ping_seconds()), Duration.ofSeconds(config.stop_seconds()),
                        Duration.ofSeconds(config.answer_seconds())),
                scheduler, this::ended);
        String token = HexFormat.of().formatHex(token());
        String url;
        try {
            url = channels.open(context.experimentId(), token, run::connection);
        } catch (IllegalStateException e) {
            throw new DispatcherException(e.getMessage(), e);
        }
        Map<String, String> env = builder.environment();
        env.put("SDK_PROCESS", "dispatcher");
        env.put("NNI_MODE", context.resuming() ? "resume" : "start");
        env.put("NNI_CHECKPOINT_DIRECTORY", directory.resolve("checkpoint").toString());
        env.put("NNI_LOG_DIRECTORY", directory.resolve("log").toString());
        String logLevel = String.valueOf(experiment.getOrDefault("logLevel", "info"));
        env.put("NNI_LOG_LEVEL", logLevel);
        env.put("NNI_INCLUDE_INTERMEDIATE_RESULTS", Boolean.toString(includeIntermediate));
        env.put("NNI_TUNER_COMMAND_CHANNEL", url);
        env.put("CUDA_VISIBLE_DEVICES", gpuIndices(experiment.get("tunerGpuIndices")));
        runs.add(run);
        try {
            List<String> command = new ArrayList<>(DispatcherLogLevel.apply(
                    AdvisorIds.launch(python, context.tuner(), directory.resolve("log")), logLevel));
            command.addAll(List.of("--exp_params", Base64.getEncoder().encodeToString(json(experiment)
                    .getBytes(StandardCharsets.UTF_8))));
            builder.command(command);
            Files.createDirectories(directory.resolve("checkpoint"));
            run.start(builder);
        } catch (IOException e) {
            channels.close(context.experimentId(), token);
            runs.remove(run);
            throw new DispatcherException("cannot start NNI's dispatcher for " + algorithm + " with " + python + ": "
                    + e.getMessage(), e);
        }
        LOG.info("experiment {}: {} runs through NNI's dispatcher (nni {}, {} framing)", context.experimentId(), algorithm,
                version.strip(), framing == Framing.JSON ? "v3.0 JSON" : "v2.8");
        return new ClosingChannel(run, () -> channels.close(context.experimentId(), token));
    }

    /**
     * @return whether the experiment asks that the tuner hear of early-stopped trials (NNI's
     *         {@code NNI_INCLUDE_INTERMEDIATE_RESULTS}: the dispatcher then gives the tuner a stopped
     *         trial's last intermediate result as its final one); read where NNI's manager reads it
     */
    static boolean includeIntermediateResults(Map<String, Object> experiment) {
        return experiment.get("deprecated") instanceof Map<?, ?> deprecated
                && Boolean.TRUE.equals(deprecated.get("includeIntermediateResults"));
    }

    /** @return the algorithm names this provider runs (as its {@code nni.algorithm} service property lists them) */
    public static List<String> algorithmNames() {
        return KnownAlgorithms.names();
    }

    private static byte[] token() {
        byte[] bytes = new byte[16];
        RANDOM.nextBytes(bytes);
        return bytes;
    }

    private void ended(DispatcherRun run) {
        runs.remove(run);
    }

    /** Closes the run and its channel's route together. */
    private record ClosingChannel(DispatcherRun run, Runnable closeRoute) implements Dispatcher {
        @Override
        public void requestTrials(int count) {
            run.requestTrials(count);
        }

        @Override
        public void reportMetric(String metric) {
            run.reportMetric(metric);
        }

        @Override
        public boolean wantsIntermediateResults() {
            return run.wantsIntermediateResults();
        }

        @Override
        public void trialEnded(String trialId, nni.api.model.TrialStatus status, String hyperParameters) {
            run.trialEnded(trialId, status, hyperParameters);
        }

        @Override
        public void updateSearchSpace(Map<String, Object> searchSpace) {
            run.updateSearchSpace(searchSpace);
        }

        @Override
        public void importData(String results) {
            run.importData(results);
        }

        @Override
        public void close() {
            closeRoute.run();
            run.close();
        }

        @Override
        public CompletionStage<Void> ended() {
            return run.ended();
        }
    }

    /** @return PATH with the experiment's {@code pythonPath} (NNI's local setting) in front */
    static String searchPath(Map<String, Object> experiment, String path) {
        Object services = experiment.get("trainingService");
        Object first = services instanceof List<?> list && !list.isEmpty() ? list.get(0) : services;
        Object pythonPath = first instanceof Map<?, ?> service ? service.get("pythonPath") : null;
        String base = path == null ? "/usr/local/bin:/usr/bin:/bin" : path;
        return pythonPath == null || pythonPath.toString().isBlank() ? base : pythonPath + File.pathSeparator + base;
    }

    /** @return the configured command, else the environment's {@value #PYTHON_VARIABLE}, else {@code python3} */
    static String pythonCommand(String configured, String environment) {
        if (configured != null && !configured.isBlank()) {
            return configured.strip();
        }
        return environment != null && !environment.isBlank() ? environment.strip() : "python3";
    }

    /** @return the interpreter's path: the configured command as given when it has a slash, else found on {@code path} */
    private String interpreter(String path, String algorithm) throws DispatcherException {
        String command = pythonCommand(config.python_command(), System.getenv(PYTHON_VARIABLE));
        if (command.contains("/")) {
            if (!Files.isExecutable(Path.of(command))) {
                throw new DispatcherException(algorithm + " runs through NNI's dispatcher, which needs Python with the nni"
                        + " package; " + command + " (nni.dispatcher python.command, else $" + PYTHON_VARIABLE + ") is not an executable file");
            }
            return command;
        }
        for (String directory : path.split(File.pathSeparator)) {
            Path candidate = Path.of(directory.isEmpty() ? "." : directory, command);
            if (Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        throw new DispatcherException(algorithm + " runs through NNI's dispatcher, which needs Python with the nni package;"
                + " no " + command + " was found on PATH (" + path + ")");
    }

    /** @return {@code nni.__version__} as the interpreter imports it, or why it cannot */
    private static String nniVersion(String python, Path directory, String algorithm, ProcessBuilder like)
            throws DispatcherException {
        ProcessBuilder probe = new ProcessBuilder(python, "-c", "import nni, sys; sys.stdout.write(str(nni.__version__))")
                .directory(directory.toFile()).redirectErrorStream(true);
        probe.environment().clear();
        probe.environment().putAll(like.environment());
        try {
            Process process = probe.start();
            process.getOutputStream().close();
            byte[] output = process.getInputStream().readNBytes(64 * 1024);
            if (!process.waitFor(PROBE_PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new DispatcherException(algorithm + " runs through NNI's dispatcher, and " + python
                        + " did not finish importing nni within " + PROBE_PATIENCE.toSeconds() + " s");
            }
            String text = new String(output, StandardCharsets.UTF_8).strip();
            if (process.exitValue() != 0) {
                String[] lines = text.split("\n");
                throw new DispatcherException(algorithm + " runs through NNI's dispatcher, which needs the nni package, and "
                        + python + " cannot import it (" + lines[lines.length - 1].strip() + "): install it there"
                        + " (python3 -m pip install nni), set " + PYTHON_VARIABLE + " or nni.dispatcher python.command to a Python that has it,"
                        + " or choose an algorithm nni-osgi has in Java");
            }
            return text;
        } catch (IOException e) {
            throw new DispatcherException(algorithm + " runs through NNI's dispatcher, and " + python + " cannot be run: "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DispatcherException("interrupted while checking " + python + " for the nni package", e);
        }
    }

    /** @return NNI's {@code CUDA_VISIBLE_DEVICES} for the tuner: its {@code tunerGpuIndices}, or none */
    static String gpuIndices(Object indices) {
        if (indices instanceof List<?> list) {
            List<String> all = new ArrayList<>();
            list.forEach(index -> all.add(String.valueOf(index)));
            return String.join(",", all);
        }
        return indices == null ? "" : indices.toString();
    }

    private static String json(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write JSON: " + e.getMessage(), e);
        }
    }
}
