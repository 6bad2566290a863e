package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.FixMethodOrder;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runners.MethodSorters;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.Select;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The web UI in a real browser (headless Chromium) against the runnable jar running a real
 * experiment on the local platform. The trials are held by the test ({@code webui/trial.py} waits
 * for a file per trial), so every step knows what the experiment is doing; the pages are checked
 * against NNI's REST API, and they must change while the test only releases trials (live updates).
 * Each view's screenshot is written to {@code target/screenshots/}.
 *
 * <p>One runtime and one browser for the class; the methods run in name order, each building on
 * the experiment the previous ones left.
 */
@FixMethodOrder(MethodSorters.NAME_ASCENDING)
public class WebUiIT {

    @ClassRule
    public static final TemporaryFolder FOLDER = new TemporaryFolder();

    private static final Path SCREENSHOTS = Path.of("target", "screenshots");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static RuntimeProcess runtime;
    private static Browser browser;
    private static Path control;
    private static String id;

    @BeforeClass
    public static void runAnExperiment() throws Exception {
        browser = Browser.start(SCREENSHOTS);
        Path code = FOLDER.newFolder("code").toPath();
        Files.copy(WebUiIT.class.getResourceAsStream("/webui/trial.py"), code.resolve("trial.py"));
        control = Files.createDirectories(code.resolve("control"));
        Path config = code.resolve("config.yml");
        Files.writeString(config, """
                experimentName: held
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6]}
                  opt: {_type: choice, _value: [adam, sgd]}
                trialCommand: python3 trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 8
                tuner:
                  name: GridSearch
                  classArgs: {optimize_mode: maximize}
                trainingService:
                  platform: local
                """);
        runtime = RuntimeProcess.start(FOLDER.newFolder("home").toPath(), FOLDER.newFolder("experiments").toPath(),
                "run", config.toString());
        await().atMost(Duration.ofSeconds(90)).until(() -> runtime.console().contains(" started in "));
        Matcher started = Pattern.compile("experiment (\\w{8}) started in").matcher(runtime.console());
        assertTrue(runtime.console(), started.find());
        id = started.group(1);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (control != null) {
            Files.writeString(control.resolve("go-all"), "");
        }
        try {
            if (browser != null) {
                browser.close();
            }
        } finally {
            if (runtime != null) {
                runtime.close();
            }
        }
    }

    @Test
    public void a_runPrintsTheAddressOfTheUiAndTheListShowsTheExperiment() throws Exception {
        String address = ui() + "#/experiments/" + id;
        assertTrue(runtime.console(), runtime.console().contains("web UI: " + address));
        browser.open(ui());
        browser.waitFor(d -> browser.findAll("#experiments-table tr[data-id='" + id + "']").size() == 1);
        WebElement row = browser.find("#experiments-table tr[data-id='" + id + "']");
        assertTrue(row.getText(), row.getText().contains("held") && row.getText().contains("local"));
        browser.waitFor(d -> browser.find("#live").getAttribute("class").equals("live"));
        browser.screenshot("experiments");
    }

    @Test
    public void b_theOverviewShowsTheRightCountsAndFollowsTheExperimentLive() throws Exception {
        awaitStatistics(Map.of("RUNNING", 2));
        browser.open(ui() + "#/experiments/" + id);
        awaitCounts(0, 2, 2);
        release(0);
        release(1);
        awaitStatistics(Map.of("SUCCEEDED", 2, "RUNNING", 2));
        // no reload: the page follows the experiment through its live stream
        awaitCounts(2, 2, 4);
        assertEquals("succeeded 2 failed 0 running 2 of max 8", browser.text("#trial-counts"));
        assertEquals("RUNNING", browser.text("#experiment-status"));
        assertEquals(bestTrialId(), browser.find("#best-table tbody tr td a").getText());
        browser.screenshot("overview");
    }

    @Test
    public void c_theTrialTableSortsFiltersAndSearches() throws Exception {
        browser.open(ui() + "#/experiments/" + id + "/trials");
        browser.waitFor(d -> rows().size() == 4);
        assertEquals(List.of(trial(0), trial(1), trial(2), trial(3)), rowIds());
        List<String> header = browser.findAll("#trials-table thead th").stream().map(WebElement::getText).toList();
        assertTrue(header.toString(), header.containsAll(List.of("x", "opt", "Default metric", "Duration", "Platform / machine")));

        browser.find("#trials-table th[data-sort='default']").click();
        browser.waitFor(d -> browser.findAll("#trials-table th.sorted.asc[data-sort='default']").size() == 1);
        browser.find("#trials-table th[data-sort='default']").click();
        browser.waitFor(d -> browser.findAll("#trials-table th.sorted.desc[data-sort='default']").size() == 1);
        String best = bestTrialId();
        browser.waitFor(d -> rowIds().get(0).equals(best));
        browser.screenshot("trials");

        new Select(browser.find("#status-filter")).selectByValue("SUCCEEDED");
        browser.waitFor(d -> rows().size() == 2 && rows().stream().allMatch(r -> "SUCCEEDED".equals(r.getAttribute("data-status"))));
        assertEquals(Set.of(trial(0), trial(1)), new TreeSet<>(rowIds()));

        new Select(browser.find("#status-filter")).selectByValue("");
        String x = parameters(0).get("x").asText();
        browser.find("#search").sendKeys("x=" + x);
        Set<String> expected = new TreeSet<>();
        for (JsonNode trial : trials()) {
            if (trial.path("hyperParameters").size() > 0 && parametersOf(trial).get("x").asText().equals(x)) {
                expected.add(trial.get("trialJobId").asText());
            }
        }
        browser.waitFor(d -> new TreeSet<>(rowIds()).equals(expected));
        browser.find("#search").clear();
        String fourth = trial(3);
        browser.find("#search").sendKeys(fourth);
        browser.waitFor(d -> rowIds().equals(List.of(fourth)));
    }

    @Test
    public void d_aTrialShowsItsIntermediateResultsFinalResultAndLogs() throws Exception {
        browser.open(ui() + "#/experiments/" + id + "/trials/" + trial(0));
        browser.waitFor(d -> "3".equals(browser.find("#intermediate-chart").getAttribute("data-points")));
        double expected = parameters(0).get("x").asDouble() + ("adam".equals(parameters(0).get("opt").asText()) ? 0.5 : 0);
        assertEquals(expected, Double.parseDouble(browser.text("#trial-final")), 1e-9);
        assertTrue(browser.text("#trial-status").contains("SUCCEEDED"));
        browser.waitFor(d -> browser.find("#log").getText().contains("trial 0 says hello"));
        browser.find("#log-stderr").click();
        browser.waitFor(d -> browser.find("#log").getText().contains("trial 0 to stderr"));
        browser.screenshot("trial");
    }

    @Test
    public void e_cancellingFromTheUiCancelsTheTrial() throws Exception {
        String running = trial(2);
        browser.open(ui() + "#/experiments/" + id + "/trials/" + running);
        browser.waitFor(d -> browser.findAll("#cancel").size() == 1);
        browser.find("#cancel").click();
        browser.find("#cancel-confirm").click();
        await().atMost(Duration.ofSeconds(60)).until(() -> "USER_CANCELED".equals(status(running)));
        browser.waitFor(d -> browser.text("#trial-status").contains("USER_CANCELED"));
        assertTrue(browser.findAll("#cancel").isEmpty());
    }

    @Test
    public void f_anUpdateOfConcurrencyTakesEffect() throws Exception {
        awaitStatistics(Map.of("SUCCEEDED", 2, "USER_CANCELED", 1, "RUNNING", 2));
        browser.open(ui() + "#/experiments/" + id);
        WebElement concurrency = browser.waitFor(d -> {
            List<WebElement> input = browser.findAll("#limit-trialConcurrency");
            return !input.isEmpty() && "2".equals(input.get(0).getAttribute("value")) ? input.get(0) : null;
        });
        concurrency.clear();
        concurrency.sendKeys("3");
        browser.find("#save-trialConcurrency").click();
        browser.waitFor(d -> String.valueOf(browser.text("#limits-message")).contains("Saved"));
        await().atMost(Duration.ofSeconds(30)).until(() -> runtime.get("experiment?experiment_id=" + id)
                .path("params").path("trialConcurrency").asInt() == 3);
        awaitStatistics(Map.of("SUCCEEDED", 2, "USER_CANCELED", 1, "RUNNING", 3));
        // a cancelled trial counts as cancelled, in the words nni:top and nni:experiments use
        awaitCounts(2, 3, 6);
        assertEquals("1", browser.text("[data-count='cancelled']"));
    }

    @Test
    public void g_theParallelCoordinatesDrawOneLinePerFinishedTrial() throws Exception {
        release(3);
        awaitStatistics(Map.of("SUCCEEDED", 3, "USER_CANCELED", 1, "RUNNING", 3));
        int finished = 0;
        for (JsonNode trial : trials()) {
            finished += trial.has("finalMetricData") ? 1 : 0;
        }
        assertEquals(3, finished);
        int expected = finished;
        browser.open(ui() + "#/experiments/" + id + "/parallel");
        browser.waitFor(d -> String.valueOf(expected).equals(browser.find("#parallel-chart").getAttribute("data-lines")));
        // an axis per parameter and one for the metric
        assertEquals(List.of("x", "opt", "default metric"), parallelAxes());
        browser.screenshot("parallel");

        browser.open(ui() + "#/experiments/" + id + "/metric");
        browser.waitFor(d -> String.valueOf(expected).equals(browser.find("#metric-chart").getAttribute("data-points")));
        browser.screenshot("metric");
    }

    @Test
    public void h_aPlatformConfigurationSavedInTheFormReachesTheComponent() throws Exception {
        browser.open(ui() + "#/platforms");
        browser.waitFor(d -> browser.findAll("#platforms-table tr[data-platform='local'] td[data-sessions]").size() == 1);
        assertEquals("1", browser.text("#platforms-table tr[data-platform='local'] td[data-sessions]"));
        String form = "section.platform-form[data-platform='remote']";
        WebElement timeout = browser.waitFor(d -> {
            List<WebElement> found = browser.findAll(form + " input[name='connect.timeout.seconds']");
            return found.isEmpty() ? null : found.get(0);
        });
        assertEquals("15", browser.text(form + " [data-effective='connect.timeout.seconds']"));
        timeout.clear();
        timeout.sendKeys("7");
        browser.find(form + " button[type='submit']").click();
        browser.waitFor(d -> "7".equals(browser.text(form + " [data-effective='connect.timeout.seconds']")));
        JsonNode remote = null;
        for (JsonNode platform : uiJson("platforms").path("platforms")) {
            if (platform.path("name").asText().equals("remote")) {
                remote = platform;
            }
        }
        assertTrue(String.valueOf(remote), remote != null);
        for (JsonNode attribute : remote.path("configuration").path("attributes")) {
            if (attribute.path("id").asText().equals("connect.timeout.seconds")) {
                assertEquals("7", attribute.path("saved").asText());
                assertEquals("7", attribute.path("effective").asText());
            }
        }
        browser.screenshot("platforms");
    }

    // ------------------------------------------------------------------ helpers

    private static String ui() {
        return runtime.endpoint() + "ui/";
    }

    private static void release(int sequence) throws IOException {
        Files.writeString(control.resolve("go-" + sequence), "");
    }

    private static List<WebElement> rows() {
        return browser.findAll("#trials-table tbody tr");
    }

    private static List<String> rowIds() {
        List<String> ids = new ArrayList<>();
        for (WebElement row : rows()) {
            ids.add(row.getAttribute("data-trial"));
        }
        return ids;
    }

    /** @return the names of the axes ECharts drew */
    private static List<String> parallelAxes() throws IOException {
        return RuntimeProcess.JSON.readValue(browser.find("#parallel-chart").getAttribute("data-axes"),
                new com.fasterxml.jackson.core.type.TypeReference<List<String>>() { });
    }

    /** Waits until the overview shows these counts and NNI's REST API agrees. */
    private static void awaitCounts(int succeeded, int running, int started) {
        browser.waitFor(d -> String.valueOf(succeeded).equals(browser.text("[data-count='succeeded']"))
                && String.valueOf(running).equals(browser.text("[data-count='running']"))
                && String.valueOf(started).equals(browser.text("[data-count='started']")));
    }

    private static void awaitStatistics(Map<String, Integer> expected) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Map<String, Integer> counts = new java.util.HashMap<>();
            for (JsonNode status : runtime.get("job-statistics?experiment_id=" + id)) {
                counts.put(status.get("trialJobStatus").asText(), status.get("trialJobNumber").asInt());
            }
            counts.values().removeIf(n -> n == 0);
            return counts.equals(expected);
        });
    }

    private static JsonNode trials() throws IOException, InterruptedException {
        return runtime.get("trial-jobs?experiment_id=" + id);
    }

    private static String trial(int sequence) throws IOException, InterruptedException {
        for (JsonNode trial : trials()) {
            if (trial.get("sequenceId").asInt() == sequence) {
                return trial.get("trialJobId").asText();
            }
        }
        throw new AssertionError("no trial " + sequence + " in " + trials());
    }

    private static String status(String trialId) throws IOException, InterruptedException {
        return runtime.get("trial-jobs/" + trialId + "?experiment_id=" + id).get("status").asText();
    }

    private static JsonNode parameters(int sequence) throws IOException, InterruptedException {
        for (JsonNode trial : trials()) {
            if (trial.get("sequenceId").asInt() == sequence) {
                return parametersOf(trial);
            }
        }
        throw new AssertionError("no trial " + sequence);
    }

    private static JsonNode parametersOf(JsonNode trial) throws IOException {
        return RuntimeProcess.JSON.readTree(trial.path("hyperParameters").get(0).asText()).path("parameters");
    }

    /** @return the succeeded trial with the highest final result (the experiment maximizes) */
    private static String bestTrialId() throws IOException, InterruptedException {
        String best = null;
        double bestValue = Double.NEGATIVE_INFINITY;
        for (JsonNode trial : trials()) {
            JsonNode finals = trial.path("finalMetricData");
            if (finals.size() > 0) {
                double value = Double.parseDouble(RuntimeProcess.JSON.readTree(finals.get(0).get("data").asText()).asText());
                if (value > bestValue) {
                    bestValue = value;
                    best = trial.get("trialJobId").asText();
                }
            }
        }
        return best;
    }

    private static JsonNode uiJson(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(HttpRequest.newBuilder(URI.create(runtime.endpoint() + "api/v1/nni-ui/" + path))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(response.body(), 200, response.statusCode());
        return RuntimeProcess.JSON.readTree(response.body());
    }
}
