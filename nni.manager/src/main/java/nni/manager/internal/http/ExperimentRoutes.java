package nni.manager.internal.http;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.model.TrialJob;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.TrialView;
import nni.manager.internal.store.ExperimentStore;
import nni.manager.internal.store.MetricRecord;
import nni.manager.internal.store.Profile;
import nni.manager.internal.store.TrialRecord;

/**
 * NNI's experiment REST routes (nni-core §5.1) in NNI's JSON shapes, for nnictl and the web UI.
 * NNI serves one experiment per port; this runtime may run several, so every route takes an
 * optional {@code experiment_id} query parameter and otherwise answers for the most recently
 * started open experiment.
 */
final class ExperimentRoutes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> STATUSES = Set.of("UNKNOWN", "WAITING", "RUNNING", "SUCCEEDED", "FAILED",
            "USER_CANCELED", "SYS_CANCELED", "EARLY_STOPPED");

    private final Supplier<ExperimentManager> manager;

    ExperimentRoutes(Supplier<ExperimentManager> manager) {
        this.manager = manager;
    }

    void addTo(Router router) {
        router.get("/check-status", (request, path) -> selected(request)
                .<Object>map(e -> Map.of("status", e.status().name(), "errors", e.errors()))
                .orElse(Map.of("status", ExperimentStatus.INITIALIZED.name(), "errors", List.of())));
        router.get("/experiment", (request, path) -> profile(require(request)));
        // the body is read only for an open experiment and a known update type
        router.withBody("PUT", "/experiment", (request, path) -> {
            require(request);
            updateType(request);
        }, this::update);
        // NNI's Experiment.stop(): the experiment stops (trials cancelled), its data stays
        router.add("DELETE", "/experiment", (request, path) -> {
            manager.get().stop(require(request).id(), Duration.ofSeconds(30));
            return Map.of();
        });
        router.get("/trial-jobs", (request, path) -> {
            String status = request.getParameter("status");
            if (status != null && !STATUSES.contains(status)) {
                throw HttpError.badRequest("status: expected one of " + STATUSES + ", got '" + status + "'");
            }
            Experiment experiment = require(request);
            return trialInfos(experiment).stream().filter(t -> status == null || status.equals(t.get("status"))).toList();
        });
        router.get("/trial-jobs/{id}", (request, path) -> trialInfos(require(request)).stream()
                .filter(t -> t.get("trialJobId").equals(path.get("id"))).findFirst()
                .orElseThrow(() -> HttpError.notFound("no trial " + path.get("id"))));
        router.add("DELETE", "/trial-jobs/{id}", (request, path) -> {
            Experiment experiment = require(request);
            try {
                experiment.cancelTrial(path.get("id"));
            } catch (IllegalArgumentException e) {
                throw HttpError.notFound(e.getMessage());
            } catch (IllegalStateException e) {
                throw new HttpError(409, e.getMessage());
            }
            return Map.of();
        });
        router.get("/metric-data", (request, path) -> metrics(require(request), null, type(request)));
        router.get("/metric-data/{id}", (request, path) -> metrics(require(request), path.get("id"), type(request)));
        router.get("/metric-data-range/{min}/{max}", (request, path) -> {
            long min = sequence("min_seq_id", path.get("min"));
            long max = sequence("max_seq_id", path.get("max"));
            Experiment experiment = require(request);
            Set<String> inRange = new java.util.HashSet<>();
            experiment.trials().stream().filter(t -> t.sequenceId() >= min && t.sequenceId() <= max)
                    .forEach(t -> inRange.add(t.job().id()));
            return experiment.store().metrics(null, null).stream().filter(m -> inRange.contains(m.trialJobId())).toList();
        });
        router.get("/metric-data-latest", (request, path) -> {
            // every FINAL, and each trial's latest PERIODICAL
            List<MetricRecord> all = require(request).store().metrics(null, null);
            Map<String, MetricRecord> latest = new LinkedHashMap<>();
            List<MetricRecord> answer = new ArrayList<>();
            for (MetricRecord metric : all) {
                if ("PERIODICAL".equals(metric.type())) {
                    latest.merge(metric.trialJobId(), metric, (a, b) -> b.sequence() >= a.sequence() ? b : a);
                } else {
                    answer.add(metric);
                }
            }
            answer.addAll(latest.values());
            return answer;
        });
        router.get("/job-statistics", (request, path) -> {
            Map<String, Integer> counts = new LinkedHashMap<>();
            require(request).trials().forEach(t -> counts.merge(t.job().status().name(), 1, Integer::sum));
            return counts.entrySet().stream()
                    .map(e -> Map.of("trialJobStatus", e.getKey(), "trialJobNumber", e.getValue())).toList();
        });
        router.get("/export-data", (request, path) -> exportData(require(request)));
        router.get("/experiments-info", (request, path) -> experimentsInfo());
    }

    private Optional<Experiment> selected(HttpServletRequest request) {
        String id = request.getParameter("experiment_id");
        if (id != null) {
            return manager.get().get(id);
        }
        return manager.get().open().stream().max(Comparator.comparingLong(Experiment::startTime));
    }

    private Experiment require(HttpServletRequest request) {
        String id = request.getParameter("experiment_id");
        return selected(request).orElseThrow(() -> HttpError.notFound(id == null ? "no experiment is open"
                : "no open experiment " + id + "; open: " + manager.get().open().stream().map(Experiment::id).toList()));
    }

    private static long sequence(String name, String text) {
        long value;
        try {
            value = Long.parseLong(text);
        } catch (NumberFormatException e) {
            value = -1;
        }
        if (value < 0) {
            throw HttpError.badRequest(name + ": expected a sequence id 0-" + Long.MAX_VALUE + ", got '" + text + "'");
        }
        return value;
    }

    private static String type(HttpServletRequest request) {
        String type = request.getParameter("type");
        if (type != null && !Set.of("FINAL", "PERIODICAL", "CUSTOM").contains(type)) {
            throw HttpError.badRequest("type: expected FINAL or PERIODICAL, got '" + type + "'");
        }
        return type;
    }

    static Map<String, Object> profile(Experiment experiment) {
        Map<String, Object> profile = new LinkedHashMap<>();
        profile.put("params", experiment.config().masked().canonical());
        profile.put("id", experiment.id());
        profile.put("execDuration", experiment.execMillis() / 1000);
        profile.put("logDir", experiment.directory().toString());
        profile.put("startTime", experiment.startTime());
        if (experiment.endTime() != null) {
            profile.put("endTime", experiment.endTime());
        }
        Optional<Profile> stored = experiment.store().latestProfile();
        profile.put("nextSequenceId", experiment.trials().size());
        profile.put("revision", stored.map(Profile::revision).orElse(0L));
        return profile;
    }

    /** {@code PUT /experiment?update_type=...} with the whole profile, its {@code params} changed. */
    private Object update(HttpServletRequest request, Map<String, String> path, byte[] bytes) {
        Experiment experiment = require(request);
        String type = updateType(request);
        // numbers are read exactly (1e309 stays 1e309) and checked by the rules the config loader uses
        JsonNode body = readJson(type.equals("SEARCH_SPACE") ? JSON : JsonServlet.EXACT_NUMBERS, bytes, "the body");
        JsonNode params = body == null ? null : body.get("params");
        if (params == null || !params.isObject()) {
            throw HttpError.badRequest("params: expected the experiment profile with its params object");
        }
        try {
            switch (type) {
                case "TRIAL_CONCURRENCY" -> experiment.update(Experiment.Update.TRIAL_CONCURRENCY,
                        plain(params, "trialConcurrency"));
                case "MAX_TRIAL_NUM" -> experiment.update(Experiment.Update.MAX_TRIAL_NUM,
                        plain(params, params.has("maxTrialNumber") ? "maxTrialNumber" : "maxTrialNum"));
                case "MAX_EXEC_DURATION" -> experiment.update(Experiment.Update.MAX_EXEC_DURATION,
                        plain(params, params.has("maxExperimentDuration") ? "maxExperimentDuration" : "maxExecDuration"));
                default -> {
                    JsonNode space = params.get("searchSpace");
                    if (space != null && space.isTextual()) {
                        space = readJson(JSON, space.asText().getBytes(java.nio.charset.StandardCharsets.UTF_8),
                                "params.searchSpace");
                    }
                    if (space == null || !space.isObject()) {
                        throw HttpError.badRequest("params.searchSpace: expected a search space object");
                    }
                    experiment.update(Experiment.Update.SEARCH_SPACE,
                            JSON.convertValue(space, new TypeReference<Map<String, Object>>() { }));
                }
            }
        } catch (IllegalArgumentException e) {
            throw HttpError.badRequest("params." + e.getMessage());
        } catch (IllegalStateException e) {
            throw new HttpError(409, e.getMessage());
        }
        return Map.of();
    }

    private static final List<String> UPDATE_TYPES = List.of("TRIAL_CONCURRENCY", "MAX_TRIAL_NUM", "MAX_EXEC_DURATION",
            "SEARCH_SPACE");

    private static String updateType(HttpServletRequest request) {
        String type = request.getParameter("update_type");
        if (type == null || !UPDATE_TYPES.contains(type)) {
            throw HttpError.badRequest("update_type: expected TRIAL_CONCURRENCY, MAX_TRIAL_NUM, MAX_EXEC_DURATION or "
                    + "SEARCH_SPACE" + (type == null ? "" : ", got '" + type + "'"));
        }
        return type;
    }

    private static JsonNode readJson(ObjectMapper mapper, byte[] bytes, String what) {
        try {
            return mapper.readTree(bytes);
        } catch (IOException e) {
            String reason = e instanceof JsonProcessingException parse ? parse.getOriginalMessage() : e.getMessage();
            throw HttpError.badRequest(what + " is not JSON: " + reason);
        }
    }

    /** @return a field's value as parsed (Integer, Long, BigInteger, BigDecimal, String, ...), or null */
    private static Object plain(JsonNode params, String field) {
        JsonNode value = params.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        try {
            return JsonServlet.EXACT_NUMBERS.treeToValue(value, Object.class);
        } catch (JsonProcessingException e) {
            throw HttpError.badRequest("params." + field + ": " + e.getOriginalMessage());
        }
    }

    /**
     * NNI's {@code TrialJobInfo} of every trial: the stored history, with the platform's current
     * message for trials still live (why one waits changes without a status change, so it is not a
     * stored event).
     */
    static List<Map<String, Object>> trialInfos(Experiment experiment) {
        ExperimentStore store = experiment.store();
        Map<String, List<MetricRecord>> finals = new LinkedHashMap<>();
        for (MetricRecord metric : store.metrics(null, "FINAL")) {
            finals.computeIfAbsent(metric.trialJobId(), id -> new ArrayList<>()).add(metric);
        }
        List<Map<String, Object>> infos = new ArrayList<>();
        for (TrialRecord trial : store.trials()) {
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("trialJobId", trial.id());
            info.put("sequenceId", trial.sequenceId());
            info.put("status", trial.status());
            Optional<TrialJob> job = experiment.trial(trial.id()).map(TrialView::job);
            String message = job.filter(j -> !j.status().isTerminal()).map(TrialJob::message).orElse(trial.message());
            if (message != null && !message.isEmpty()) {
                info.put("message", message);
            }
            // not NNI's: where the trial runs and what the platform says about it (NNI's clients ignore extra fields)
            job.map(TrialJob::host).filter(host -> !host.isEmpty()).ifPresent(host -> info.put("host", host));
            job.map(TrialJob::attributes).filter(attributes -> !attributes.isEmpty())
                    .ifPresent(attributes -> info.put("attributes", attributes));
            info.put("startTime", trial.startTime());
            info.put("endTime", trial.endTime());
            info.put("hyperParameters", trial.parameters() == null ? List.of() : List.of(trial.parameters()));
            String logPath = trial.logPath() == null ? "file://localhost" + experiment.directory().resolve("trials")
                    .resolve(trial.id()) : trial.logPath();
            info.put("logPath", logPath);
            if ("SUCCEEDED".equals(trial.status()) && finals.containsKey(trial.id())) {
                info.put("finalMetricData", finals.get(trial.id()));
            }
            if ("FAILED".equals(trial.status())) {
                info.put("stderrPath", logPath + "/stderr");
            }
            infos.add(info);
        }
        return infos;
    }

    private static List<MetricRecord> metrics(Experiment experiment, String trialId, String type) {
        if (trialId != null && experiment.trial(trialId).isEmpty()) {
            throw HttpError.notFound("no trial " + trialId);
        }
        return experiment.store().metrics(trialId, type);
    }

    private static List<Map<String, Object>> exportData(Experiment experiment) throws JsonProcessingException {
        List<Map<String, Object>> data = new ArrayList<>();
        Map<String, TrialRecord> trials = new LinkedHashMap<>();
        experiment.store().trials().forEach(t -> trials.put(t.id(), t));
        for (MetricRecord metric : experiment.store().metrics(null, "FINAL")) {
            TrialRecord trial = trials.get(metric.trialJobId());
            if (trial == null || !"SUCCEEDED".equals(trial.status()) || trial.parameters() == null) {
                continue;
            }
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("parameter", JSON.readTree(trial.parameters()).get("parameters"));
            JsonNode value = JSON.readTree(metric.data());
            row.put("value", value.isTextual() ? JSON.readTree(value.asText()) : value);
            row.put("trialJobId", trial.id());
            data.add(row);
        }
        return data;
    }

    private List<Map<String, Object>> experimentsInfo() {
        List<Map<String, Object>> infos = new ArrayList<>();
        for (String id : manager.get().stored()) {
            Optional<Experiment> open = manager.get().get(id);
            Map<String, Object> info = new LinkedHashMap<>();
            info.put("id", id);
            if (open.isPresent()) {
                Experiment experiment = open.get();
                info.put("status", experiment.status().name());
                info.put("experimentName", experiment.config().experimentName());
                info.put("platform", experiment.config().platform());
                info.put("startTime", experiment.startTime());
                info.put("endTime", experiment.endTime());
            } else {
                info.put("status", ExperimentStatus.STOPPED.name());
                try (ExperimentStore store = ExperimentStore.openReadOnly(manager.get().root().resolve(id))) {
                    store.latestProfile().ifPresent(p -> {
                        info.put("startTime", p.startTime());
                        info.put("endTime", p.endTime());
                        try {
                            JsonNode params = JSON.readTree(p.params());
                            info.put("experimentName", params.path("experimentName").asText(null));
                        } catch (JsonProcessingException e) {
                            info.put("experimentName", null);
                        }
                    });
                } catch (IOException | RuntimeException e) {
                    info.put("status", "UNKNOWN");
                }
            }
            info.put("logDir", manager.get().root().resolve(id).toString());
            info.put("tag", List.of());
            infos.add(info);
        }
        for (Experiment experiment : manager.get().open()) {
            if (infos.stream().noneMatch(i -> i.get("id").equals(experiment.id()))) {
                Map<String, Object> info = new LinkedHashMap<>();
                info.put("id", experiment.id());
                info.put("status", experiment.status().name());
                info.put("experimentName", experiment.config().experimentName());
                info.put("platform", experiment.config().platform());
                info.put("startTime", experiment.startTime());
                info.put("endTime", experiment.endTime());
                info.put("logDir", experiment.directory().toString());
                info.put("tag", List.of());
                infos.add(info);
            }
        }
        return infos;
    }
}
