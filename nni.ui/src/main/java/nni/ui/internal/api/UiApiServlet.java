package nni.ui.internal.api;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServletRequest;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletAsyncSupported;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.osgi.service.servlet.whiteboard.Preprocessor;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.InstalledPlatforms;
import nni.api.experiment.Outcome;
import nni.api.experiment.PlatformView;
import nni.api.experiment.Refusal;
import nni.api.platform.PlatformException;
import nni.http.HttpError;
import nni.http.JsonBodies;
import nni.http.JsonServlet;
import nni.http.RequestBodies;
import nni.http.Router;
import nni.http.LoginGuard;

/**
 * The web UI's own JSON routes, {@code /api/v1/nni-ui/*}: what the pages show, computed on the
 * server so that a page gets a screenful whatever the size of the experiment (a page of trials,
 * thinned chart series). NNI's REST API ({@code /api/v1/nni/}) stays as NNI shapes it; the pages
 * change experiments through it (update, cancel) as {@code nnictl} does.
 *
 * <pre>
 * GET /experiments                                   every experiment, open or stored
 * GET /experiments/{id}                              overview
 * GET /experiments/{id}/trials?offset&amp;limit&amp;sort&amp;order&amp;status&amp;q   a page of the trial table
 * GET /experiments/{id}/trials/{trial}?points=N      a trial with its intermediate results
 * GET /experiments/{id}/trials/{trial}/files/{name}?tail=BYTES   the end of stdout, stderr or trial.log
 * GET /experiments/{id}/results?points=N             default metric per trial, best so far
 * GET /experiments/{id}/parallel                     hyper-parameter rows for parallel coordinates
 * GET /experiments/{id}/intermediate?trials=a,b|last=N&amp;q&amp;points   several trials' intermediate results
 * GET /experiments/{id}/export                       every trial, the canonical config (secrets masked)
 * GET /experiments/{id}/export/{metrics.csv|metrics.json}   every metric, streamed as a download
 * POST /experiments/{id}/resume                      resumes a stored experiment (nni:resume)
 * DELETE /experiments/{id}                           deletes a stored experiment that is not open (nni:delete)
 * GET /platforms                                     installed platforms and their configuration forms
 * GET /machines                                      each running experiment's platform sessions, their machines' GPUs
 * PUT /platforms/{name}/configuration?bundle=BSN     {"values": {id: value}} saved through Config Admin
 * </pre>
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern(UiApiServlet.PATTERN)
@HttpWhiteboardServletAsyncSupported
@HttpWhiteboardServletName("nni-ui-api")
public class UiApiServlet extends JsonServlet {
    private static final long serialVersionUID = 1L;

    static final String PATTERN = "/api/v1/nni-ui/*";
    private static final long MAX_FORM_BYTES = 64 << 10;

    private final transient ExperimentService service;
    private final transient InstalledPlatforms platforms;
    private final transient ExperimentLookup lookup;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile PlatformForms forms;

    /** @param login registered only once the login guards the port (nothing is served before) */
    @Activate
    public UiApiServlet(@Reference InstalledPlatforms platforms, @Reference RequestBodies bodies,
                        @Reference(service = Preprocessor.class, target = LoginGuard.TARGET) Preprocessor login,
                        @Reference ExperimentService service) {
        super(bodies);
        this.service = service;
        this.platforms = platforms;
        this.lookup = new ExperimentLookup(service);
    }

    @Deactivate
    void deactivate() {
        lookup.close();
    }

    @Override
    protected long maxBodyBytes() {
        return Math.min(MAX_FORM_BYTES, super.maxBodyBytes());
    }

    @Override
    protected void routes(Router router) {
        // routes are added by the super constructor, before the fields are set: they read them late
        router.get("/experiments", (request, path) -> service.listing().stream().map(ExperimentOverview::listRow).toList());
        router.get("/experiments/{id}", (request, path) -> {
            ExperimentReading experiment = experiment(path);
            boolean open = experiment.open();
            return ExperimentOverview.of(experiment, open, shownStatus(experiment, open));
        });
        router.get("/experiments/{id}/trials", (request, path) -> TrialTable.page(experiment(path),
                TrialTable.Query.of(request)));
        router.get("/experiments/{id}/trials/{trial}", (request, path) -> TrialDetail.of(experiment(path),
                path.get("trial"), points(request)));
        router.get("/experiments/{id}/trials/{trial}/files/{name}", (request, path) -> TrialDetail.tail(experiment(path),
                path.get("trial"), path.get("name"), (int) Queries.whole(request, "tail", TrialDetail.DEFAULT_TAIL, 1, TrialDetail.MAX_TAIL)));
        router.get("/experiments/{id}/results", (request, path) -> MetricCharts.finalResults(experiment(path), points(request)));
        router.get("/experiments/{id}/parallel", (request, path) -> MetricCharts.parallel(experiment(path)));
        router.get("/experiments/{id}/intermediate", (request, path) -> IntermediateCurves.of(experiment(path), request));
        router.get("/experiments/{id}/export/{file}", (request, path) -> ExperimentExport.metrics(experiment(path),
                path.get("file")));
        router.get("/experiments/{id}/export", (request, path) -> {
            ExperimentReading experiment = experiment(path);
            return ExperimentExport.of(experiment, shownStatus(experiment, experiment.open()));
        });
        router.add("POST", "/experiments/{id}/resume", (request, path) -> {
            String id = path.get("id");
            lookup.forget(id);
            Outcome<ExperimentInfo> resumed;
            try {
                resumed = service.resume(id);
            } catch (PlatformException e) {
                throw new HttpError(503, "experiment " + id + " cannot resume: " + e.getMessage());
            }
            // open already: 409; not stored, or refused by the engine: 404, as the page has always had them
            ExperimentInfo info = resumed.orElseThrow(refusal -> refusal.kind() == Refusal.Kind.CONFLICT
                    ? new HttpError(409, refusal.message()) : HttpError.notFound(refusal.message()));
            try (ExperimentReading reading = HttpError.answer(service.read(info.id()), "")) {
                return ExperimentOverview.listRow(reading, true, reading.info().status());
            }
        });
        router.add("DELETE", "/experiments/{id}", (request, path) -> {
            String id = path.get("id");
            lookup.forget(id);
            return Map.of("id", id, "deleted", HttpError.answer(service.delete(id), "").toString());
        });
        router.get("/platforms", (request, path) -> platforms());
        router.get("/machines", (request, path) -> machines());
        router.withBody("PUT", "/platforms/{name}/configuration", (request, path) -> requireForms(),
                (request, path, body) -> requireForms().save(path.get("name"), bundleOf(request), values(body)));
    }

    private ExperimentReading experiment(Map<String, String> path) {
        return lookup.require(path.get("id"));
    }

    /** @return the machines page: the sessions of the experiments that run, read from their readings */
    private Map<String, Object> machines() throws IOException {
        List<ExperimentReading> running = new ArrayList<>();
        try {
            for (ExperimentInfo open : service.list()) {
                if (open.readOnly()) {
                    continue; // no sessions
                }
                Outcome<ExperimentReading> read = service.read(open.id());
                if (read.isDone()) {
                    running.add(read.value());
                }
            }
            return MachinesView.of(running.stream().filter(ExperimentReading::open).toList());
        } finally {
            running.forEach(ExperimentReading::close);
        }
    }

    /** @return an open experiment's own status, else the one it ended with */
    private String shownStatus(ExperimentReading experiment, boolean open) throws IOException {
        ExperimentInfo info = experiment.info();
        return open ? info.status() : service.endedStatus(info.id());
    }

    private Map<String, Object> platforms() {
        PlatformForms current = forms;
        List<Map<String, Object>> list = new ArrayList<>();
        for (PlatformView info : platforms.platforms()) {
            Map<String, Object> platform = new LinkedHashMap<>();
            platform.put("name", info.name());
            platform.put("bundle", info.bundle());
            platform.put("version", info.version());
            platform.put("state", info.state());
            platform.put("sessions", info.sessions());
            platform.put("runsTrials", info.runsTrials());
            platform.put("reports", info.reports().stream().map(r -> Map.of("experiment", r.experiment(),
                    "transport", r.channel().transport(), "why", r.channel().why())).toList());
            platform.put("configuration", current == null ? null : current.form(info.name(), info.bundle()).orElse(null));
            list.add(platform);
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("platforms", list);
        answer.put("forms", current != null);
        return answer;
    }

    private PlatformForms requireForms() {
        PlatformForms current = forms;
        if (current == null) {
            throw new HttpError(503, "configuration forms need the Metatype service (bundle org.apache.felix.metatype)");
        }
        return current;
    }

    private static String bundleOf(HttpServletRequest request) {
        String bundle = request.getParameter("bundle");
        if (bundle == null || bundle.isEmpty()) {
            throw HttpError.badRequest("bundle: the symbolic name of the platform's bundle is required");
        }
        return bundle;
    }

    private static Map<String, Object> values(byte[] body) {
        Map<String, Object> parsed = JsonBodies.object(body, "the body");
        if (!(parsed.get("values") instanceof Map<?, ?> values)) {
            throw HttpError.badRequest("values: expected an object of settings, {\"values\": {\"id\": \"value\"}}");
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> typed = (Map<String, Object>) values;
        return typed;
    }

    private static int points(HttpServletRequest request) {
        return (int) Queries.whole(request, "points", MetricCharts.DEFAULT_POINTS, 2, MetricCharts.MAX_POINTS);
    }
}
