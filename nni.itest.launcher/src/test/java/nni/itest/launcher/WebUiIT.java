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
        // the live page may replace the table between finding the link and reading it: read it again then
        String best = bestTrialId();
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(org.openqa.selenium.StaleElementReferenceException.class)
                .until(() -> best.equals(browser.text("#best-table tbody tr td a")));
        browser.screenshot("overview");
    }

    @Test
    public void c_theTrialTableSortsFiltersAndSearches() throws Exception {
        browser.open(ui() + "#/experiments/" + id + "/trials");
        browser.waitFor(d -> rows().size() == 4);
        assertEquals(List.of(trial(0), trial(1), trial(2), trial(3)), rowIds());
        List<String> header = browser.texts("#trials-table thead th");
        assertTrue(header.toString(), header.containsAll(List.of("x", "opt", "Default metric", "Duration", "Platform / machine")));

        browser.click("#trials-table th[data-sort='default']");
        browser.waitFor(d -> browser.findAll("#trials-table th.sorted.asc[data-sort='default']").size() == 1);
        browser.click("#trials-table th[data-sort='default']");
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
        browser.click("#log-stderr");
        browser.waitFor(d -> browser.find("#log").getText().contains("trial 0 to stderr"));
        browser.screenshot("trial");
    }

    @Test
    public void e_cancellingFromTheUiCancelsTheTrial() throws Exception {
        String running = trial(2);
        browser.open(ui() + "#/experiments/" + id + "/trials/" + running);
        browser.waitFor(d -> browser.findAll("#cancel").size() == 1);
        browser.click("#cancel");
        browser.click("#cancel-confirm");
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
        browser.click("#save-trialConcurrency");
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
        browser.click(form + " button[type='submit']");
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

    @Test
    public void i_theParallelLegendIsLabelledWithTheMetricsRange() throws Exception {
        List<Double> finals = new ArrayList<>();
        for (JsonNode trial : trials()) {
            JsonNode data = trial.path("finalMetricData");
            if (data.size() > 0) {
                finals.add(Double.parseDouble(RuntimeProcess.JSON.readTree(data.get(0).get("data").asText()).asText()));
            }
        }
        assertTrue(String.valueOf(finals), finals.size() >= 2);
        String min = shown(java.util.Collections.min(finals));
        String max = shown(java.util.Collections.max(finals));
        browser.open(ui() + "#/experiments/" + id + "/parallel");
        browser.waitFor(d -> max.equals(browser.text("#parallel-legend .legend-max"))
                && min.equals(browser.text("#parallel-legend .legend-min")));
    }

    @Test
    public void j_theDurationChartHasABarPerStartedTrial() throws Exception {
        Set<String> started = new TreeSet<>();
        for (JsonNode trial : trials()) {
            if (trial.hasNonNull("startTime")) {
                started.add(trial.get("trialJobId").asText());
            }
        }
        browser.open(ui() + "#/experiments/" + id + "/durations");
        browser.waitFor(d -> String.valueOf(started.size()).equals(browser.find("#durations-chart").getAttribute("data-bars")));
        Set<String> drawn = new TreeSet<>();
        for (JsonNode bar : RuntimeProcess.JSON.readTree(browser.find("#durations-chart").getAttribute("data-trials"))) {
            drawn.add(bar.get(0).asText());
            assertTrue(bar.toString(), bar.get(1).asLong() >= 0);
        }
        assertEquals(started, drawn);
        browser.screenshot("durations");
    }

    @Test
    public void k_theConfigPageShowsTheConfigAndExportsTrialsMetricsAndConfig() throws Exception {
        // the held trials have reported their three intermediate results: no metric arrives meanwhile
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            for (JsonNode trial : runtime.get("trial-jobs?status=RUNNING&experiment_id=" + id)) {
                if (runtime.get("metric-data/" + trial.get("trialJobId").asText() + "?experiment_id=" + id).size() < 3) {
                    return false;
                }
            }
            return true;
        });
        browser.open(ui() + "#/experiments/" + id + "/config");
        browser.waitFor(d -> browser.findAll("a[data-export='trials.csv']").size() == 1);
        JsonNode shownConfig = RuntimeProcess.JSON.readTree(browser.text("#config-view"));
        assertEquals(3, shownConfig.path("trialConcurrency").asInt());
        assertTrue(shownConfig.toString(), shownConfig.path("searchSpace").has("opt"));
        assertEquals(shownConfig, RuntimeProcess.JSON.readTree(download("config.json")));

        // a CSV row per trial, with its status and parameters as NNI's REST API has them
        List<String> lines = List.of(download("trials.csv").split("\\r?\\n"));
        assertEquals("trialId,sequence,status,x,opt,default,startTime,endTime,durationMillis,platform,machine,message", lines.get(0));
        JsonNode trials = trials();
        assertEquals(lines.toString(), trials.size() + 1, lines.size());
        for (JsonNode trial : trials) {
            JsonNode parameters = parametersOf(trial);
            String start = trial.get("trialJobId").asText() + "," + trial.get("sequenceId").asInt() + "," + trial.get("status").asText()
                    + "," + parameters.get("x").asInt() + "," + parameters.get("opt").asText() + ",";
            assertTrue(start + " in " + lines, lines.stream().anyMatch(line -> line.startsWith(start)));
        }
        // every metric the REST API has, in JSON and in CSV
        int metrics = runtime.get("metric-data?experiment_id=" + id).size();
        assertTrue(metrics > 0);
        assertEquals(metrics, RuntimeProcess.JSON.readTree(download("metrics.json")).size());
        assertEquals(metrics + 1, download("metrics.csv").split("\\r?\\n").length);
        assertEquals(trials.size(), RuntimeProcess.JSON.readTree(download("trials.json")).size());
        browser.screenshot("config");
    }

    @Test
    public void l_theUiFollowsTheSystemsDarkSetting() throws Exception {
        org.openqa.selenium.chromium.ChromiumDriver chromium = (org.openqa.selenium.chromium.ChromiumDriver) browser.driver;
        try {
            chromium.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features",
                    List.of(Map.of("name", "prefers-color-scheme", "value", "dark"))));
            browser.open(ui() + "#/experiments/" + id);
            browser.waitFor(d -> browser.findAll("#best-table").size() == 1);
            assertTrue(luminance("document.body") < 0.2);
            assertTrue(luminance("document.querySelector('.card')") < 0.2);
            browser.screenshot("overview-dark");
        } finally {
            chromium.executeCdpCommand("Emulation.setEmulatedMedia", Map.of("features",
                    List.of(Map.of("name", "prefers-color-scheme", "value", "light"))));
        }
        browser.open(ui() + "#/experiments/" + id);
        browser.waitFor(d -> browser.findAll("#best-table").size() == 1);
        assertTrue(luminance("document.body") > 0.8);
    }

    @Test
    public void m_twoTrialsTickedInTheTableAreComparedSideBySide() throws Exception {
        String first = trial(0);
        String second = trial(1);
        browser.open(ui() + "#/experiments/" + id + "/trials");
        browser.waitFor(d -> browser.findAll("input[data-pick='" + first + "']").size() == 1);
        assertEquals("true", browser.find("#compare").getAttribute("disabled"));
        browser.click("input[data-pick='" + first + "']");
        browser.click("input[data-pick='" + second + "']");
        browser.waitFor(d -> browser.find("#compare").isEnabled());
        browser.click("#compare");
        browser.waitFor(d -> browser.findAll("#comparison thead th[data-trial]").size() == 2);
        assertEquals(List.of(first, second), browser.attributes("#comparison thead th[data-trial]", "data-trial"));
        List<String> finals = browser.texts("#comparison td[data-row='default']");
        assertEquals(List.of(shown(finalOf(first)), shown(finalOf(second))), finals);
        for (String name : List.of("x", "opt")) {
            boolean differ = !parameters(0).get(name).equals(parameters(1).get(name));
            String row = browser.attributes("#comparison tr[data-parameter='" + name + "']", "class").get(0);
            assertEquals(name + ": " + row, differ, row.contains("differs"));
        }
        browser.waitFor(d -> ("[\"" + first + "\",\"" + second + "\"]").equals(browser.find("#compare-chart").getAttribute("data-curves")));
        browser.screenshot("compare");
    }

    @Test
    public void n_theIntermediateChartOverlaysTheTrialsAndFiltersThem() throws Exception {
        Set<String> reporting = new TreeSet<>();
        Set<String> withX = new TreeSet<>();
        String x = parameters(0).get("x").asText();
        for (JsonNode trial : trials()) {
            String trialId = trial.get("trialJobId").asText();
            for (JsonNode metric : runtime.get("metric-data/" + trialId + "?experiment_id=" + id)) {
                if (metric.get("type").asText().equals("PERIODICAL")) {
                    reporting.add(trialId);
                    if (parametersOf(trial).get("x").asText().equals(x)) {
                        withX.add(trialId);
                    }
                }
            }
        }
        assertTrue(reporting.toString(), reporting.size() >= 4 && withX.size() < reporting.size());
        browser.open(ui() + "#/experiments/" + id + "/intermediate");
        browser.waitFor(d -> reporting.equals(curves()));
        browser.screenshot("intermediate");
        browser.find("#curve-filter").sendKeys("x=" + x);
        browser.waitFor(d -> withX.equals(curves()));
    }

    // ------------------------------------------------------------------ helpers

    private static Set<String> curves() {
        try {
            Set<String> ids = new TreeSet<>();
            for (JsonNode curve : RuntimeProcess.JSON.readTree(String.valueOf(browser.find("#curves-chart").getAttribute("data-curves")))) {
                ids.add(curve.asText());
            }
            return ids;
        } catch (IOException e) {
            return Set.of();
        }
    }

    private static double finalOf(String trialId) throws IOException, InterruptedException {
        JsonNode finals = runtime.get("trial-jobs/" + trialId + "?experiment_id=" + id).path("finalMetricData");
        return Double.parseDouble(RuntimeProcess.JSON.readTree(finals.get(0).get("data").asText()).asText());
    }

    /** @return a number as the pages write it (six significant digits, no trailing zeros) */
    private static String shown(double value) {
        return new java.math.BigDecimal(value).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }

    /** @return the text of the file behind an export link, read by the page itself */
    private static String download(String name) {
        return (String) ((org.openqa.selenium.JavascriptExecutor) browser.driver).executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "fetch(document.querySelector(\"a[data-export='\" + arguments[0] + \"']\").href).then(r => r.text()).then(done);",
                name);
    }

    /** @return the relative luminance (0 black .. 1 white) of an element's computed background */
    private static double luminance(String element) {
        String colour = (String) browser.script("return getComputedStyle(" + element + ").backgroundColor;");
        Matcher rgb = Pattern.compile("rgba?\\((\\d+), (\\d+), (\\d+)").matcher(colour);
        assertTrue(colour, rgb.find());
        return (0.2126 * Integer.parseInt(rgb.group(1)) + 0.7152 * Integer.parseInt(rgb.group(2))
                + 0.0722 * Integer.parseInt(rgb.group(3))) / 255;
    }

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
        return browser.attributes("#trials-table tbody tr", "data-trial");
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
