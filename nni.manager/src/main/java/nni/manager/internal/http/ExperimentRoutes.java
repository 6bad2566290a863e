package nni.manager.internal.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;

import jakarta.servlet.http.HttpServletRequest;

import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.http.Router;
import nni.http.JsonServlet;
import nni.http.HttpError;
import nni.http.JsonBodies;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.ExperimentUpdate;
import nni.api.model.TrialJob;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.Progress;
import nni.manager.internal.experiment.TrialFiles;
import nni.manager.internal.experiment.TrialView;
import nni.manager.internal.nnictl.NnictlBridge;
import nni.manager.internal.nnictl.TrialExport;
import nni.manager.internal.store.ExperimentStore;
import nni.manager.internal.store.MetricRecord;
import nni.manager.internal.store.Profile;
import nni.manager.internal.store.TrialRecord;

/**
 * NNI's experiment REST routes (nni-core §5.1) in NNI's JSON shapes, for nnictl and the web UI.
 * NNI serves one experiment per port; this runtime may run several, so a request names its
 * experiment: by its own address {@code /experiments/<id>/api/v1/nni/...} (the {@code prefixUrl} of
 * NNI's registry), by {@code ?experiment_id=}, by the profile a {@code PUT /experiment} sends, or by
 * a trial id. A request that names none is answered for the one running (as NNI's port serves its
 * one experiment), else the newest that ended; with several running it is refused (409) rather than
 * answered for the wrong one.
 */
final class ExperimentRoutes {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Set<String> STATUSES = Set.of("UNKNOWN", "WAITING", "RUNNING", "SUCCEEDED", "FAILED",
            "USER_CANCELED", "SYS_CANCELED", "EARLY_STOPPED");

    private final Supplier<ExperimentManager> manager;
    private final Supplier<ExperimentService> service;
    private final Supplier<NnictlBridge> nnictl;

    ExperimentRoutes(Supplier<ExperimentManager> manager, Supplier<ExperimentService> service, Supplier<NnictlBridge> nnictl) {
        this.manager = manager;
        this.service = service;
        this.nnictl = nnictl;
    }

    void addTo(Router router) {
        router.get("/check-status", (request, path) -> {
            if (request.getParameter("experiment_id") != null) {
                Experiment named = require(request); // an experiment that is not open is not found (404)
                return Map.of("status", named.status().name(), "errors", named.errors());
            }
            return selected(request).<Object>map(e -> Map.of("status", e.status().name(), "errors", e.errors()))
                    .orElse(Map.of("status", ExperimentStatus.INITIALIZED.name(), "errors", List.of()));
        });
        // NNI answers its version as a JSON string; this runtime answers the manager's
        router.get("/version", (request, path) -> version());
        router.get("/trial-file/{id}/{name}", (request, path) -> {
            Experiment experiment = requireFor(request, path.get("id"));
            if (experiment.trial(path.get("id")).isEmpty()) {
                throw HttpError.notFound("experiment " + experiment.id() + " has no trial " + path.get("id"));
            }
            if (!TrialFiles.NAMES.contains(path.get("name"))) {
                throw HttpError.notFound("a trial's files here are " + String.join(", ", TrialFiles.NAMES) + "; no "
                        + path.get("name"));
            }
            return new JsonServlet.PlainText(TrialFiles.open(experiment, path.get("id"), path.get("name"))
                    .orElseThrow(() -> HttpError.notFound("trial " + path.get("id") + " has no " + path.get("name") + " yet")));
        });
        router.get("/experiment", (request, path) -> profile(require(request)));
        // the body is read only for an open experiment and a known update type; with several running and
        // none named in the request, the profile in the body names it
        router.withBody("PUT", "/experiment", (request, path) -> {
            if (request.getParameter("experiment_id") != null || running().size() <= 1) {
                require(request);
            }
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
        router.get("/trial-jobs/{id}", (request, path) -> {
            // this trial's rows only: the whole list costs milliseconds per thousand trials
            Experiment experiment = requireFor(request, path.get("id"));
            TrialRecord trial = experiment.store().trial(path.get("id")).orElseThrow(() -> HttpError.notFound("no trial " + path.get("id")));
            return trialInfo(experiment, trial, experiment.store().metrics(trial.id(), "FINAL"),
                    experiment.store().addedHyperParameters(trial.id()).getOrDefault(trial.id(), List.of()));
        });
        router.add("DELETE", "/trial-jobs/{id}", (request, path) -> {
            Experiment experiment = requireFor(request, path.get("id"));
            HttpError.answer(service.get().cancelTrial(experiment.id(), path.get("id")), "");
            return Map.of();
        });
        router.get("/metric-data", (request, path) -> metrics(require(request), null, type(request)));
        router.get("/metric-data/{id}", (request, path) -> metrics(requireFor(request, path.get("id")), path.get("id"), type(request)));
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
        router.get("/export-data", (request, path) -> TrialExport.rows(require(request).store()));
        router.get("/experiments-info", (request, path) -> registry(NnictlBridge::entries));
        router.get("/experiment-metadata", (request, path) -> {
            String id = require(request).id();
            return registry(bridge -> bridge.entry(id)).orElseThrow(() -> HttpError.notFound("experiment " + id
                    + " has no entry in NNI's experiment registry"));
        });
        router.withBody("POST", "/experiment/import-data", (request, path) -> require(request), (request, path, body) -> {
            JsonBodies.read(body, "the body"); // as strict as every JSON body
            Experiment experiment = require(request);
            HttpError.answer(service.get().importData(experiment.id(), new String(body, StandardCharsets.UTF_8)), "");
            return null;
        });
        router.get("/experiment/imported-data", (request, path) -> require(request).importedData());
        unsupported(router);
    }

    /** NNI routes this runtime does not serve: a clear answer rather than a bare 404 or 405. */
    private static void unsupported(Router router) {
        String create = "experiments are created by this runtime itself (java -jar nni-osgi.jar run CONFIG, or nni:create "
                + "CONFIG), not by NNI's launcher";
        router.add("POST", "/experiment", (request, path) -> {
            throw new HttpError(405, create);
        });
        router.add("PUT", "/experiment/cluster-metadata", (request, path) -> {
            throw new HttpError(405, "cluster metadata (nnictl v1) is not supported: " + create);
        });
        router.add("POST", "/trial-jobs", (request, path) -> {
            throw new HttpError(405, "adding a customized trial is not supported");
        });
        for (String tensorboard : List.of("/tensorboard", "/tensorboard/{id}", "/tensorboard-tasks")) {
            for (String method : List.of("GET", "POST", "PUT", "DELETE")) {
                router.add(method, tensorboard, (request, path) -> {
                    throw HttpError.notFound("TensorBoard tasks are not supported by this runtime");
                });
            }
        }
        router.get("/trial-log/{id}/{type}", (request, path) -> {
            throw HttpError.notFound("NNI's old trial-log route is not served: use /trial-file/{id}/stdout, stderr or trial.log");
        });
    }

    private static String version() {
        Bundle manager = FrameworkUtil.getBundle(ExperimentRoutes.class);
        return manager == null ? "unknown" : manager.getVersion().toString();
    }

    @FunctionalInterface
    private interface RegistryRead<T> {
        T read(NnictlBridge bridge) throws IOException, InterruptedException;
    }

    private <T> T registry(RegistryRead<T> read) throws IOException {
        try {
            return read.read(nnictl.get());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new HttpError(503, "interrupted while reading NNI's experiment registry");
        }
    }

    /**
     * The experiment a request means: the one it names, else the one NNI's single-experiment port
     * would serve: the only one running, or, when none runs, the newest of those that ended (an
     * experiment that ended stays open for reading, and must not hide the next one from NNI's
     * {@code Experiment.connect(port)} and nnictl).
     *
     * @return the experiment the request names or means; empty when it names one not open, or none is open
     * @throws HttpError 409 when it names none and several run
     */
    private Optional<Experiment> selected(HttpServletRequest request) {
        String id = request.getParameter("experiment_id");
        if (id != null) {
            return manager.get().get(id);
        }
        List<Experiment> running = running();
        if (running.size() > 1) {
            throw severalRunning(running);
        }
        List<Experiment> open = manager.get().open();
        return running.isEmpty() ? open.stream().reduce((older, newer) -> newer) : Optional.of(running.get(0));
    }

    /** @return the open experiments that have not ended, oldest first */
    private List<Experiment> running() {
        return manager.get().open().stream().filter(e -> !e.status().settled()).toList();
    }

    private static HttpError severalRunning(List<Experiment> running) {
        List<String> ids = running.stream().map(Experiment::id).toList();
        return new HttpError(409, "several experiments are running in this runtime (" + String.join(", ", ids)
                + "): address one as /" + NnictlBridge.PREFIX + "<id>/api/v1/nni/..., or add ?experiment_id=<id>");
    }

    /** @return the experiment the request names, else the open experiment that has the trial */
    private Experiment requireFor(HttpServletRequest request, String trialId) {
        if (request.getParameter("experiment_id") != null) {
            return require(request);
        }
        List<Experiment> having = manager.get().open().stream().filter(e -> e.trial(trialId).isPresent()).toList();
        if (having.size() == 1) {
            return having.get(0);
        }
        return require(request);
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
        String type = updateType(request);
        // numbers are read exactly (1e309 stays 1e309) and checked by the rules the config loader uses
        Map<String, Object> body = JsonBodies.object(bytes, "the body");
        if (!(body.get("params") instanceof Map<?, ?> params)) {
            throw HttpError.badRequest("params: expected the experiment profile with its params object");
        }
        // the profile names its experiment: NNI's clients send back the one they read
        String named = request.getParameter("experiment_id");
        Object profileId = body.get("id");
        if (named != null && profileId instanceof String id && !id.equals(named)) {
            throw HttpError.badRequest("id: the profile is experiment " + id + "'s, the request is for " + named);
        }
        Experiment experiment = named == null && profileId instanceof String id
                ? manager.get().get(id).orElseThrow(() -> HttpError.notFound("no open experiment "
                        + id + "; open: " + manager.get().open().stream().map(Experiment::id).toList()))
                : require(request);
        Map<String, Object> given = new LinkedHashMap<>();
        params.forEach((key, value) -> given.put(String.valueOf(key), value));
        if (type.equals("SEARCH_SPACE") && given.get(ExperimentUpdate.SEARCH_SPACE) instanceof String text) {
            // NNI's clients send the space as JSON text
            given.put(ExperimentUpdate.SEARCH_SPACE, JsonBodies.read(text.getBytes(StandardCharsets.UTF_8), "params.searchSpace"));
        }
        ExperimentUpdate update = HttpError.answer(ExperimentUpdate.fromRest(type, given), "params.");
        HttpError.answer(service.get().update(experiment.id(), update), "params.");
        // NNI answers {}; a max trials below what already started is said (NNI's clients ignore the field)
        Optional<String> below = type.equals("MAX_TRIAL_NUM") ? Progress.of(experiment).counts().belowStarted() : Optional.empty();
        return below.<Map<String, Object>>map(note -> Map.of("message", note)).orElse(Map.of());
    }

    private static String updateType(HttpServletRequest request) {
        String type = request.getParameter("update_type");
        if (type == null || !ExperimentUpdate.REST_TYPES.contains(type)) {
            throw HttpError.badRequest("update_type: expected TRIAL_CONCURRENCY, MAX_TRIAL_NUM, MAX_EXEC_DURATION or "
                    + "SEARCH_SPACE" + (type == null ? "" : ", got '" + type + "'"));
        }
        return type;
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
        Map<String, List<String>> added = store.addedHyperParameters();
        List<Map<String, Object>> infos = new ArrayList<>();
        for (TrialRecord trial : store.trials()) {
            infos.add(trialInfo(experiment, trial, finals.getOrDefault(trial.id(), List.of()),
                    added.getOrDefault(trial.id(), List.of())));
        }
        return infos;
    }

    /**
     * NNI's {@code hyperParameters}: every parameter set the trial got, the first one and those
     * added while it ran (multi-phase), one per {@code parameter_index} (the first given wins), each
     * as compact JSON text as NNI's data store re-serializes them.
     */
    static List<String> hyperParameters(String first, List<String> added) {
        List<String> sets = new ArrayList<>();
        Set<Integer> indices = new HashSet<>();
        for (String packed : first == null ? added : Stream.concat(Stream.of(first), added.stream()).toList()) {
            JsonNode node;
            try {
                node = JSON.readTree(packed);
            } catch (JsonProcessingException e) {
                sets.add(packed); // not JSON (a platform's own record): shown as it is
                continue;
            }
            if (node != null && node.isObject() && indices.add(node.path("parameter_index").asInt(0))) {
                sets.add(node.toString());
            }
        }
        return sets;
    }

    /**
     * NNI's {@code TrialJobInfo} of one trial; {@code finals} are its FINAL metrics, {@code added} the
     * parameter sets it got while it ran.
     */
    private static Map<String, Object> trialInfo(Experiment experiment, TrialRecord trial, List<MetricRecord> finals,
            List<String> added) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("trialJobId", trial.id());
        info.put("sequenceId", trial.sequenceId());
        info.put("status", trial.status());
        Optional<TrialView> view = experiment.trial(trial.id());
        Optional<TrialJob> job = view.map(TrialView::job);
        String message = job.filter(j -> !j.status().isTerminal()).map(TrialJob::message).orElse(trial.message());
        if (message != null && !message.isEmpty()) {
            info.put("message", message);
        }
        // not NNI's: where the trial runs and what the platform says about it (NNI's clients ignore extra fields);
        // platform: the training service (of a hybrid list, the member) it was placed on
        view.ifPresent(placed -> info.put("platform", placed.platform()));
        job.map(TrialJob::host).filter(host -> !host.isEmpty()).ifPresent(host -> info.put("host", host));
        job.map(TrialJob::attributes).filter(attributes -> !attributes.isEmpty())
                .ifPresent(attributes -> info.put("attributes", attributes));
        info.put("startTime", trial.startTime());
        info.put("endTime", trial.endTime());
        info.put("hyperParameters", hyperParameters(trial.parameters(), added));
        String logPath = trial.logPath() == null ? "file://localhost" + experiment.directory().resolve("trials")
                .resolve(trial.id()) : trial.logPath();
        info.put("logPath", logPath);
        if ("SUCCEEDED".equals(trial.status()) && !finals.isEmpty()) {
            info.put("finalMetricData", finals);
        }
        if ("FAILED".equals(trial.status())) {
            info.put("stderrPath", logPath + "/stderr");
        }
        return info;
    }

    private static List<MetricRecord> metrics(Experiment experiment, String trialId, String type) {
        if (trialId != null && experiment.trial(trialId).isEmpty()) {
            throw HttpError.notFound("no trial " + trialId);
        }
        return experiment.store().metrics(trialId, type);
    }
}
