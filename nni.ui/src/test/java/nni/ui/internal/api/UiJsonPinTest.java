package nni.ui.internal.api;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialStatus;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.HeldSession;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.experiment.TrialSummary;

/**
 * The UI routes' JSON, pinned as text while their classes move onto the exported experiment API
 * (issue 27): every key, its order and every value a real experiment gives, but for what differs
 * from run to run (times, durations, trial ids, the folder), which are replaced by placeholders.
 * The pinned texts are in {@code src/test/resources/ui-json/}; {@code -Dnni.ui.pin.write=true}
 * writes them again from the code as it is (only ever from code known to answer as before).
 */
public class UiJsonPinTest {

    private static final int TRIALS = 12;
    private static final Pattern TIME = Pattern.compile(
            "\"(submitTime|startTime|endTime|durationMillis|elapsedMillis|leftMillis)\":-?\\d+");

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;
    private HeldSession session;
    private Path work;

    @Before
    public void runTrials() throws Exception {
        work = folder.newFolder("work").toPath();
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), work);
        setup.concurrency = TRIALS;
        setup.maxTrials = TRIALS;
        experiment = setup.startWith("uipin001", new ListTuner(TRIALS), e -> session = new HeldSession(e));
        await().atMost(Duration.ofSeconds(30)).until(() -> experiment.summaries().size() == TRIALS
                && experiment.summaries().stream().allMatch(t -> t.job().status() == TrialStatus.RUNNING));
        // the last two stay running: a latest value without a final one, a trial that can be cancelled
        for (TrialSummary trial : experiment.summaries()) {
            long x = trial.sequenceId();
            if (x >= TRIALS - 2) {
                continue;
            }
            if (x % 5 == 3) {
                session.finish(trial.job().id(), List.of(), null, TrialStatus.FAILED);
            } else {
                session.finish(trial.job().id(), List.of(0.1 * x, 0.2 * x, 0.3 * x), 10 - Math.abs(x - 6) + 0.5 * (x % 2),
                        TrialStatus.SUCCEEDED);
            }
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> experiment.summaries().stream()
                .filter(t -> t.sequenceId() < TRIALS - 2).allMatch(t -> t.job().status() == TrialStatus.FAILED
                        || t.job().status() == TrialStatus.SUCCEEDED && t.finalValue() != null));
    }

    @After
    public void stop() {
        experiment.stop(Duration.ofSeconds(5));
    }

    @Test
    public void theOverviewAndTheListRow() throws Exception {
        pinned("overview", ExperimentOverview.of(reading(), true, "RUNNING"));
        pinned("list-row", ExperimentOverview.listRow(reading(), true, "RUNNING"));
    }

    @Test
    public void pagesOfTheTrialTable() throws Exception {
        pinned("trials-first-page", TrialTable.page(reading(), new TrialTable.Query(0, 5, "sequence", false, Set.of(), null)));
        pinned("trials-by-default-desc", TrialTable.page(reading(), new TrialTable.Query(2, 6, "default", true, Set.of(), null)));
        pinned("trials-filtered", TrialTable.page(reading(), new TrialTable.Query(0, 50, "param.x", true,
                EnumSet.of(TrialStatus.SUCCEEDED, TrialStatus.RUNNING), "x=1")));
        pinned("trials-by-latest", TrialTable.page(reading(), new TrialTable.Query(0, 50, "latest", false, Set.of(), null)));
    }

    @Test
    public void aTrialWithItsIntermediateResultsAndItsFiles() throws Exception {
        pinned("trial-succeeded", TrialDetail.of(reading(), id(4), 2));
        pinned("trial-running", TrialDetail.of(reading(), id(TRIALS - 1), 2000));
        pinned("trial-file", TrialDetail.tail(reading(), id(4), "stdout", 1024));
    }

    @Test
    public void theCharts() throws Exception {
        pinned("results-thinned", MetricCharts.finalResults(reading(), 3));
        pinned("results", MetricCharts.finalResults(reading(), 2000));
        pinned("parallel", MetricCharts.parallel(reading()));
        pinned("intermediate-last", IntermediateCurves.of(reading(), request(Map.of("last", "3", "points", "2"))));
        pinned("intermediate-named", IntermediateCurves.of(reading(), request(Map.of("trials", id(2) + "," + id(TRIALS - 1)))));
    }

    @Test
    public void theExport() throws Exception {
        pinned("export", ExperimentExport.of(reading(), "RUNNING"));
        for (String file : ExperimentExport.METRIC_FILES) {
            nni.http.JsonServlet.Download download = ExperimentExport.metrics(reading(), file);
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            download.body().writeTo(out);
            pinnedText(file, download.fileName() + " " + download.contentType() + "\n"
                    + out.toString(StandardCharsets.UTF_8).replaceAll("\"timestamp\":\\d+", "\"timestamp\":\"<time>\"")
                            .replaceAll("\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z", "<time>"));
        }
    }

    private String id(long sequence) {
        return experiment.summaries().stream().filter(t -> t.sequenceId() == sequence).findFirst().orElseThrow().job().id();
    }

    private void pinned(String name, Object value) throws IOException {
        String text = Json.write(value);
        Matcher times = TIME.matcher(text);
        pinnedText(name + ".json", times.replaceAll("\"$1\":\"<time>\""));
    }

    private void pinnedText(String name, String text) throws IOException {
        for (TrialSummary trial : experiment.summaries()) {
            text = text.replace(trial.job().id(), "<trial" + trial.sequenceId() + ">");
        }
        text = text.replace(work.toString(), "<work>");
        Path file = Path.of("src/test/resources/ui-json").resolve(name);
        if (Boolean.getBoolean("nni.ui.pin.write")) {
            Files.writeString(file, text + "\n", StandardCharsets.UTF_8);
        }
        assertEquals(name, Files.readString(file, StandardCharsets.UTF_8).strip(), text.strip());
    }

    private static HttpServletRequest request(Map<String, String> parameters) {
        return (HttpServletRequest) Proxy.newProxyInstance(UiJsonPinTest.class.getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, method, args) -> method.getName().equals("getParameter")
                        ? parameters.get((String) args[0]) : null);
    }

    private nni.api.experiment.ExperimentReading reading() {
        return nni.manager.internal.service.Readings.ofOpen(experiment);
    }
}
