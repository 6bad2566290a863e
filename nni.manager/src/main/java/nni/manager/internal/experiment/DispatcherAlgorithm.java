package nni.manager.internal.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import nni.api.config.ConfigProblem;
import nni.api.model.TrialStatus;
import nni.api.platform.PlatformException;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherException;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.PastTrial;
import nni.config.AlgorithmConfig;
import nni.config.ExperimentConfig;

/**
 * An experiment's tuner and assessor run by a {@link DispatcherProvider} (NNI's dispatcher): the
 * experiment's requests, metrics and ends become NNI's commands, and the dispatcher's answers come
 * back through the {@link DispatcherContext} this class gives it. On resume the dispatcher is told
 * the history as NNI tells it: the finished results and earlier imports ({@code FD}) and the
 * trials the experiment already has ({@code AD}).
 */
final class DispatcherAlgorithm implements Algorithm {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Logger LOG = LoggerFactory.getLogger(DispatcherAlgorithm.class);

    private final DispatcherProvider provider;
    private final String experimentId;
    private final Path directory;
    private final ExperimentConfig config;
    private Dispatcher dispatcher;
    /**
     * The thread inside {@link Dispatcher#importData} or {@link Dispatcher#updateSearchSpace} now
     * (null: none), and the refusal it was answered with: {@link DispatcherContext#refuseChange}
     * is heard only there.
     */
    private volatile Thread changing;
    private volatile String refusal;

    DispatcherAlgorithm(DispatcherProvider provider, String experimentId, Path directory, ExperimentConfig config) {
        this.provider = provider;
        this.experimentId = experimentId;
        this.directory = directory;
        this.config = config;
    }

    @Override
    public void start(Host host, boolean resuming, List<Trial> history, List<String> imported)
            throws PlatformException {
        Context context = new Context(host, resuming, resumeData(history, imported), resumed(history), history, imported);
        try {
            dispatcher = provider.start(context);
        } catch (DispatcherException e) {
            throw new PlatformException(e.getMessage(), e);
        }
    }

    /** @return NNI's {@code FD} on resume: every succeeded trial's parameters and final result, then every import */
    private static String resumeData(List<Trial> history, List<String> imported) {
        ArrayNode all = JSON.createArrayNode();
        for (Trial trial : history) {
            if (trial.job.status() == TrialStatus.SUCCEEDED && trial.finalValue != null) {
                ObjectNode entry = all.addObject();
                entry.set("parameter", JSON.valueToTree(trial.parameters));
                entry.put("value", trial.finalValue);
                entry.put("id", trial.id);
            }
        }
        for (String data : imported) {
            try {
                JsonNode list = JSON.readTree(data);
                if (list != null && list.isArray()) {
                    all.addAll((ArrayNode) list);
                }
            } catch (JsonProcessingException e) {
                // an import is stored only once it parsed: nothing to give again
            }
        }
        return all.toString();
    }

    /** @return every trial of a resumed experiment as {@link DispatcherContext#pastTrials()} gives it */
    private static List<PastTrial> pastTrials(List<Trial> history) {
        List<PastTrial> past = new ArrayList<>(history.size());
        for (Trial trial : history) {
            past.add(PastTrial.builder(trial.id)
                    .parameterId(trial.parameterId instanceof Number number ? Long.valueOf(number.longValue()) : null)
                    .parameters(trial.parameters).finalResult(trial.finalValue).intermediateResults(trial.intermediate.toList())
                    .status(trial.job.status()).build());
        }
        return past;
    }

    /**
     * @return NNI v3's {@code AD} on resume: the trials still waiting or running when the experiment
     *         stopped (they continue now), each as NNI repacks it: source {@code resumed}
     */
    private static List<String> resumed(List<Trial> history) {
        List<String> resumed = new ArrayList<>();
        for (Trial trial : history) {
            if (trial.job.status().isTerminal()) {
                continue;
            }
            ObjectNode packed = JSON.createObjectNode();
            JsonNode original;
            try {
                original = JSON.readTree(trial.packed);
            } catch (JsonProcessingException e) {
                continue; // not a packed parameter: nothing the algorithm could take
            }
            packed.set("parameter_id", original.get("parameter_id"));
            packed.put("parameter_source", "resumed");
            packed.set("parameters", original.get("parameters"));
            packed.set("parameter_index", original.path("parameter_index").isMissingNode() ? JSON.getNodeFactory().numberNode(0)
                    : original.get("parameter_index"));
            resumed.add(packed.toString());
        }
        return resumed;
    }

    @Override
    public void request(int count) {
        dispatcher.requestTrials(count);
    }

    @Override
    public void metric(Trial trial, String type, Double value, String line) {
        if (!"PERIODICAL".equals(type) || dispatcher.wantsIntermediateResults()) {
            dispatcher.reportMetric(withIds(trial, line));
        }
    }

    /**
     * NNI's dispatcher reads {@code trial_job_id} and {@code parameter_id} from every metric; a trial
     * that left them out gets them added: the trial's id, and the parameter id it was started with.
     */
    private static String withIds(Trial trial, String line) {
        if (line.contains("\"trial_job_id\"") && line.contains("\"parameter_id\"")) {
            return line;
        }
        try {
            JsonNode node = JSON.readTree(line);
            if (node instanceof ObjectNode object) {
                if (!object.has("trial_job_id")) {
                    object.put("trial_job_id", trial.id);
                }
                if (!object.has("parameter_id")) {
                    object.set("parameter_id", JSON.valueToTree(trial.parameterId));
                }
                return object.toString();
            }
        } catch (JsonProcessingException e) {
            // the experiment refuses lines that are not JSON before they get here
        }
        return line;
    }

    @Override
    public void trialEnded(Trial trial, TrialStatus status) {
        dispatcher.trialEnded(trial.id, status, trial.packed);
    }

    @Override
    public boolean importData(String json) {
        String refused = changing(() -> dispatcher.importData(json));
        if (refused != null) {
            LOG.info("experiment {}: the algorithm refused the import: {}", experimentId, refused);
        }
        return refused == null;
    }

    /** @return the refusal the dispatcher answered the change with while it ran (on this thread), or null */
    private String changing(Runnable change) {
        refusal = null;
        changing = Thread.currentThread();
        try {
            change.run();
        } finally {
            changing = null;
        }
        return refusal;
    }

    @Override
    public void updateSearchSpace(Map<String, Object> searchSpace) {
        AlgorithmSection tuner = config.tuner().section();
        List<ConfigProblem> problems = provider.checkSearchSpace(tuner, searchSpace);
        if (!problems.isEmpty()) {
            List<String> messages = new ArrayList<>();
            problems.forEach(p -> messages.add((p.path().isEmpty() ? "searchSpace" : "searchSpace." + p.path()) + ": " + p.message()));
            throw new IllegalArgumentException(String.join("; ", messages));
        }
        String refused = changing(() -> dispatcher.updateSearchSpace(searchSpace));
        if (refused != null) {
            throw new IllegalArgumentException(refused);
        }
    }

    @Override
    public void close() {
        if (dispatcher != null) {
            dispatcher.close();
        }
    }

    @Override
    public CompletionStage<Void> ended() {
        return dispatcher == null ? CompletableFuture.completedFuture(null) : dispatcher.ended();
    }

    /** What the dispatcher is given, and its answers handed to the experiment. */
    private final class Context implements DispatcherContext {
        private final Host host;
        private final boolean resuming;
        private final String resumeData;
        private final List<String> resumed;
        /** The resumed trials; made {@link PastTrial}s when first asked: NNI's dispatcher never asks (copies of every result). */
        private final List<Trial> history;
        private List<PastTrial> pastTrials;
        private final List<String> imported;

        Context(Host host, boolean resuming, String resumeData, List<String> resumed, List<Trial> history,
                List<String> imported) {
            this.host = host;
            this.resuming = resuming;
            this.resumeData = resumeData;
            this.resumed = List.copyOf(resumed);
            this.history = List.copyOf(history);
            this.imported = List.copyOf(imported);
        }

        @Override
        public synchronized List<PastTrial> pastTrials() {
            if (pastTrials == null) {
                pastTrials = List.copyOf(DispatcherAlgorithm.pastTrials(history));
            }
            return pastTrials;
        }

        @Override
        public List<String> importedData() {
            return imported;
        }

        @Override
        public void exhausted() {
            host.noMoreTrials(true);
        }

        @Override
        public void refuseChange(String reason) {
            if (changing == Thread.currentThread()) {
                refusal = reason;
            } else {
                LOG.warn("experiment {}: the algorithm refused a change it is not being given, ignored: {}", experimentId, reason);
            }
        }

        @Override
        public String experimentId() {
            return experimentId;
        }

        @Override
        public Path experimentDirectory() {
            return directory;
        }

        @Override
        public boolean resuming() {
            return resuming;
        }

        @Override
        public Map<String, Object> experimentConfig() {
            Map<String, Object> params = new LinkedHashMap<>(config.masked().canonical());
            params.remove("searchSpace");
            params.remove("searchSpaceFile");
            boolean includeIntermediate = false;
            for (String key : List.of("tuner", "assessor")) {
                if (params.get(key) instanceof Map<?, ?> section) {
                    Map<Object, Object> plain = new LinkedHashMap<>(section);
                    plain.remove("implementation"); // nni-osgi's own key; NNI's dispatcher knows only its own
                    includeIntermediate |= Boolean.TRUE.equals(plain.remove("includeIntermediateResults"));
                    params.put(key, plain);
                }
            }
            if (includeIntermediate) {
                // where NNI's manager reads it (v1's tuner key, kept as v3 keeps deprecated settings)
                params.put("deprecated", Map.of("includeIntermediateResults", true));
            }
            return params;
        }

        @Override
        public Map<String, Object> searchSpace() {
            return config.searchSpace();
        }

        @Override
        public AlgorithmSection tuner() {
            return config.tuner().section();
        }

        @Override
        public Optional<AlgorithmSection> assessor() {
            return Optional.ofNullable(config.assessor()).map(AlgorithmConfig::section);
        }

        @Override
        public String resumeData() {
            return resumeData;
        }

        @Override
        public List<String> resumedParameters() {
            return resumed;
        }

        @Override
        public void newTrial(String parameters) {
            host.offer(parameters);
        }

        @Override
        public void sendParameters(String parameters) {
            host.sendParameters(parameters);
        }

        @Override
        public void noMoreTrials() {
            host.noMoreTrials(false);
        }

        @Override
        public void killTrial(String trialId) {
            host.kill(trialId);
        }

        @Override
        public void failed(String message) {
            host.fail(message, null);
        }
    }
}
