package nni.web.internal.rest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;

import jakarta.servlet.http.HttpServletRequest;

import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkUtil;

import nni.http.Router;
import nni.http.JsonServlet;
import nni.http.HttpError;
import nni.http.JsonBodies;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentProfile;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.ExperimentUpdate;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.NnictlRegistry;
import nni.api.experiment.Outcome;
import nni.api.experiment.TrialDetail;
import nni.api.experiment.TrialInfo;
import nni.api.model.TrialJob;

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

    private static final Set<String> STATUSES = Set.of("UNKNOWN", "WAITING", "RUNNING", "SUCCEEDED", "FAILED",
            "USER_CANCELED", "SYS_CANCELED", "EARLY_STOPPED");
    /** NNI's status of an experiment not started yet: what a port with no experiment open answers */
    private static final String INITIALIZED = "INITIALIZED";

    private final Supplier<ExperimentService> service;
    private final Supplier<NnictlRegistry> nnictl;

    ExperimentRoutes(Supplier<ExperimentService> service, Supplier<NnictlRegistry> nnictl) {
        this.service = service;
        this.nnictl = nnictl;
    }

    void addTo(Router router) {
        router.get("/check-status", (request, path) -> {
            if (request.getParameter("experiment_id") != null) {
                ExperimentInfo named = require(request); // an experiment that is not open is not found (404)
                return Map.of("status", named.status(), "errors", named.errors());
            }
            return selected(request).<Object>map(e -> Map.of("status", e.status(), "errors", e.errors()))
                    .orElse(Map.of("status", INITIALIZED, "errors", List.of()));
        });
        // NNI answers its version as a JSON string; this runtime answers the manager's
        router.get("/version", (request, path) -> version());
        router.get("/trial-file/{id}/{name}", (request, path) -> {
            String trialId = path.get("id");
            String name = path.get("name");
            // no such trial, or a name that is none of a trial's files: either way the file asked for is not there (404)
            Optional<InputStream> file = service.get().openTrialFile(requireFor(request, trialId).id(), trialId, name)
                    .orElseThrow(refusal -> HttpError.notFound(refusal.message()));
            return new JsonServlet.PlainText(file.orElseThrow(() -> HttpError.notFound("trial " + trialId + " has no "
                    + name + " yet")));
        });
        router.get("/experiment", (request, path) -> profile(HttpError.answer(service.get().profile(require(request).id()), "")));
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
            HttpError.answer(service.get().stop(require(request).id()), "");
            return Map.of();
        });
        router.get("/trial-jobs", (request, path) -> {
            String status = request.getParameter("status");
            if (status != null && !STATUSES.contains(status)) {
                throw HttpError.badRequest("status: expected one of " + STATUSES + ", got '" + status + "'");
            }
            List<TrialDetail> trials = HttpError.answer(service.get().trialDetails(require(request).id()), "");
            return trials.stream().filter(t -> status == null || status.equals(t.status())).map(ExperimentRoutes::trialInfo)
                    .toList();
        });
        router.get("/trial-jobs/{id}", (request, path) -> {
            ExperimentInfo experiment = requireFor(request, path.get("id"));
            return trialInfo(service.get().trialDetail(experiment.id(), path.get("id"))
                    .orElseThrow(refusal -> HttpError.notFound("no trial " + path.get("id"))));
        });
        router.add("DELETE", "/trial-jobs/{id}", (request, path) -> {
            ExperimentInfo experiment = requireFor(request, path.get("id"));
            HttpError.answer(service.get().cancelTrial(experiment.id(), path.get("id")), "");
            return Map.of();
        });
        router.get("/metric-data", (request, path) -> metrics(require(request), null, type(request)));
        router.get("/metric-data/{id}", (request, path) -> metrics(requireFor(request, path.get("id")), path.get("id"), type(request)));
        router.get("/metric-data-range/{min}/{max}", (request, path) -> {
            long min = sequence("min_seq_id", path.get("min"));
            long max = sequence("max_seq_id", path.get("max"));
            String id = require(request).id();
            Set<String> inRange = new HashSet<>();
            HttpError.answer(service.get().trials(id), "").stream().map(TrialInfo::job)
                    .filter(job -> job.sequenceId() >= min && job.sequenceId() <= max).forEach(job -> inRange.add(job.id()));
            return HttpError.answer(service.get().metrics(id, null), "").stream()
                    .filter(m -> inRange.contains(m.trialId())).map(ExperimentRoutes::metric).toList();
        });
        router.get("/metric-data-latest", (request, path) -> {
            // every FINAL, and each trial's latest PERIODICAL
            List<MetricInfo> all = HttpError.answer(service.get().metrics(require(request).id(), null), "");
            Map<String, MetricInfo> latest = new LinkedHashMap<>();
            List<MetricInfo> answer = new ArrayList<>();
            for (MetricInfo metric : all) {
                if ("PERIODICAL".equals(metric.type())) {
                    latest.merge(metric.trialId(), metric, (a, b) -> b.sequence() >= a.sequence() ? b : a);
                } else {
                    answer.add(metric);
                }
            }
            answer.addAll(latest.values());
            return answer.stream().map(ExperimentRoutes::metric).toList();
        });
        router.get("/job-statistics", (request, path) -> {
            Map<String, Integer> counts = new LinkedHashMap<>();
            HttpError.answer(service.get().trials(require(request).id()), "")
                    .forEach(t -> counts.merge(t.job().status().name(), 1, Integer::sum));
            return counts.entrySet().stream()
                    .map(e -> Map.of("trialJobStatus", e.getKey(), "trialJobNumber", e.getValue())).toList();
        });
        router.get("/export-data", (request, path) -> HttpError.answer(service.get().exportData(require(request).id()), ""));
        router.get("/experiments-info", (request, path) -> registry(NnictlRegistry::entries));
        router.get("/experiment-metadata", (request, path) -> {
            String id = require(request).id();
            return registry(registry -> registry.entry(id)).orElseThrow(() -> HttpError.notFound("experiment " + id
                    + " has no entry in NNI's experiment registry"));
        });
        router.withBody("POST", "/experiment/import-data", (request, path) -> require(request), (request, path, body) -> {
            JsonBodies.read(body, "the body"); // as strict as every JSON body
            ExperimentInfo experiment = require(request);
            HttpError.answer(service.get().importData(experiment.id(), new String(body, StandardCharsets.UTF_8)), "");
            return null;
        });
        router.get("/experiment/imported-data", (request, path) ->
                HttpError.answer(service.get().importedData(require(request).id()), ""));
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

    /**
     * @return the version of the bundle whose component is the experiment service, the manager's (what
     *         {@code nni:version} calls the manager's), as this route answered while it lived there;
     *         "unknown" outside a framework
     */
    private String version() {
        Bundle engine = FrameworkUtil.getBundle(service.get().getClass());
        return engine == null ? "unknown" : engine.getVersion().toString();
    }

    @FunctionalInterface
    private interface RegistryRead<T> {
        T read(NnictlRegistry registry) throws IOException, InterruptedException;
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
    private Optional<ExperimentInfo> selected(HttpServletRequest request) {
        String id = request.getParameter("experiment_id");
        if (id != null) {
            Outcome<ExperimentInfo> named = service.get().get(id);
            return named.isDone() ? Optional.of(named.value()) : Optional.empty();
        }
        List<ExperimentInfo> open = service.get().list();
        List<ExperimentInfo> running = open.stream().filter(e -> !e.settled()).toList();
        if (running.size() > 1) {
            throw severalRunning(running);
        }
        return running.isEmpty() ? open.stream().reduce((older, newer) -> newer) : Optional.of(running.get(0));
    }

    /** @return the open experiments that have not ended, oldest first */
    private List<ExperimentInfo> running() {
        return service.get().list().stream().filter(e -> !e.settled()).toList();
    }

    private static HttpError severalRunning(List<ExperimentInfo> running) {
        List<String> ids = running.stream().map(ExperimentInfo::id).toList();
        return new HttpError(409, "several experiments are running in this runtime (" + String.join(", ", ids)
                + "): address one as /" + NnictlRegistry.PREFIX + "<id>/api/v1/nni/..., or add ?experiment_id=<id>");
    }

    /** @return the experiment the request names, else the open experiment that has the trial */
    private ExperimentInfo requireFor(HttpServletRequest request, String trialId) {
        if (request.getParameter("experiment_id") != null) {
            return require(request);
        }
        List<ExperimentInfo> having = service.get().list().stream()
                .filter(e -> service.get().trial(e.id(), trialId).isDone()).toList();
        if (having.size() == 1) {
            return having.get(0);
        }
        return require(request);
    }

    private ExperimentInfo require(HttpServletRequest request) {
        String id = request.getParameter("experiment_id");
        return selected(request).orElseThrow(() -> HttpError.notFound(id == null ? "no experiment is open"
                : "no open experiment " + id + "; open: " + openIds()));
    }

    private List<String> openIds() {
        return service.get().list().stream().map(ExperimentInfo::id).toList();
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

    /** NNI's {@code ExperimentProfile} JSON. */
    static Map<String, Object> profile(ExperimentProfile experiment) {
        Map<String, Object> profile = new LinkedHashMap<>();
        profile.put("params", experiment.params());
        profile.put("id", experiment.id());
        profile.put("execDuration", experiment.execDuration().toSeconds());
        profile.put("logDir", experiment.logDir().toString());
        profile.put("startTime", experiment.startTime().toEpochMilli());
        experiment.endTime().ifPresent(end -> profile.put("endTime", end.toEpochMilli()));
        profile.put("nextSequenceId", experiment.nextSequenceId());
        profile.put("revision", experiment.revision());
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
        String experimentId = named == null && profileId instanceof String id
                ? service.get().get(id).orElseThrow(refusal -> HttpError.notFound("no open experiment " + id
                        + "; open: " + openIds())).id()
                : require(request).id();
        Map<String, Object> given = new LinkedHashMap<>();
        params.forEach((key, value) -> given.put(String.valueOf(key), value));
        if (type.equals("SEARCH_SPACE") && given.get(ExperimentUpdate.SEARCH_SPACE) instanceof String text) {
            // NNI's clients send the space as JSON text
            given.put(ExperimentUpdate.SEARCH_SPACE, JsonBodies.read(text.getBytes(StandardCharsets.UTF_8), "params.searchSpace"));
        }
        ExperimentUpdate update = HttpError.answer(ExperimentUpdate.fromRest(type, given), "params.");
        ExperimentInfo changed = HttpError.answer(service.get().update(experimentId, update), "params.");
        // NNI answers {}; a max trials below what already started is said (NNI's clients ignore the field)
        Optional<String> below = type.equals("MAX_TRIAL_NUM") ? changed.belowStarted() : Optional.empty();
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

    /** NNI's {@code TrialJobInfo} of one trial. */
    static Map<String, Object> trialInfo(TrialDetail trial) {
        Map<String, Object> info = new LinkedHashMap<>();
        info.put("trialJobId", trial.id());
        info.put("sequenceId", trial.sequenceId().orElse(null));
        info.put("status", trial.status());
        trial.message().ifPresent(message -> info.put("message", message));
        // not NNI's: where the trial runs and what the platform says about it (NNI's clients ignore extra fields);
        // platform: the training service (of a hybrid list, the member) it was placed on
        Optional<TrialInfo> current = trial.current();
        current.ifPresent(placed -> info.put("platform", placed.platform().orElse(null)));
        Optional<TrialJob> job = current.map(TrialInfo::job);
        job.map(TrialJob::host).filter(host -> !host.isEmpty()).ifPresent(host -> info.put("host", host));
        job.map(TrialJob::attributes).filter(attributes -> !attributes.isEmpty())
                .ifPresent(attributes -> info.put("attributes", attributes));
        info.put("startTime", trial.startTime().map(Instant::toEpochMilli).orElse(null));
        info.put("endTime", trial.endTime().map(Instant::toEpochMilli).orElse(null));
        info.put("hyperParameters", trial.hyperParameters());
        info.put("logPath", trial.logPath());
        if ("SUCCEEDED".equals(trial.status()) && !trial.finalMetrics().isEmpty()) {
            info.put("finalMetricData", trial.finalMetrics().stream().map(ExperimentRoutes::metric).toList());
        }
        if ("FAILED".equals(trial.status())) {
            info.put("stderrPath", trial.logPath() + "/stderr");
        }
        return info;
    }

    /** NNI's {@code MetricDataRecord}, its fields in NNI's order. */
    static Map<String, Object> metric(MetricInfo metric) {
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("timestamp", metric.timestamp().toEpochMilli());
        record.put("trialJobId", metric.trialId());
        record.put("parameterId", metric.parameterId().orElse(null));
        record.put("type", metric.type());
        record.put("sequence", metric.sequence());
        record.put("data", metric.data());
        return record;
    }

    private List<Map<String, Object>> metrics(ExperimentInfo experiment, String trialId, String type) {
        return service.get().metrics(experiment.id(), trialId, type)
                .orElseThrow(refusal -> HttpError.notFound(refusal.message()))
                .stream().map(ExperimentRoutes::metric).toList();
    }
}
