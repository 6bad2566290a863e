package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The experiment list's actions in a real browser against the runnable jar: stop an open
 * experiment, resume a stored one, delete one (only after its confirmation), each checked
 * against what the runtime then has (its REST API, the experiment's folder, NNI's registry).
 */
public class WebUiActionsIT {

    @Rule
    public final TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;
    private Browser browser;

    @After
    public void stop() throws Exception {
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

    @Test(timeout = 300_000)
    public void stopResumeAndDeleteFromTheExperimentList() throws Exception {
        browser = Browser.start(Path.of("target", "screenshots"));
        Path code = folder.newFolder("code").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.startWithShell(folder.newFolder("home").toPath(), experiments);
        String kept = create(code, "kept");
        String deleted = create(code, "deleted");
        for (String id : new String[] {kept, deleted}) {
            await().atMost(Duration.ofSeconds(120)).until(() -> "DONE".equals(runtime.get("check-status?experiment_id=" + id)
                    .path("status").asText()));
        }
        browser.open(runtime.endpoint() + "ui/");
        String row = "#experiments-table tr[data-id='%s'] ";

        // stop: the ended experiment closes, and its row offers resume and delete instead
        for (String id : new String[] {kept, deleted}) {
            browser.waitFor(d -> browser.findAll(row.formatted(id) + "button[data-action='stop']").size() == 1);
            browser.click(row.formatted(id) + "button[data-action='stop']");
            browser.waitFor(d -> browser.findAll(row.formatted(id) + "button[data-action='resume']").size() == 1);
        }
        assertEquals(404, runtime.request("GET", "check-status?experiment_id=" + kept, null).statusCode());

        // delete asks first: "keep" keeps everything
        browser.click(row.formatted(deleted) + "button[data-action='delete']");
        browser.waitFor(d -> browser.findAll(row.formatted(deleted) + "button[data-action='keep']").size() == 1);
        browser.screenshot("experiments-delete-confirmation");
        browser.click(row.formatted(deleted) + "button[data-action='keep']");
        browser.waitFor(d -> browser.findAll(row.formatted(deleted) + "button[data-action='delete']").size() == 1);
        assertTrue(Files.isDirectory(experiments.resolve(deleted)));
        browser.click(row.formatted(deleted) + "button[data-action='delete']");
        browser.waitFor(d -> browser.findAll(row.formatted(deleted) + "button[data-action='confirm-delete']").size() == 1);
        browser.click(row.formatted(deleted) + "button[data-action='confirm-delete']");
        browser.waitFor(d -> browser.findAll(row.formatted(deleted)).isEmpty());
        assertTrue(browser.text("#experiments-message"), browser.text("#experiments-message").startsWith("Deleted " + deleted));
        assertFalse(Files.exists(experiments.resolve(deleted)));
        JsonNode registry = RuntimeProcess.JSON.readTree(experiments.resolve(".experiment").toFile());
        assertFalse(registry.toString(), registry.has(deleted));
        assertTrue(registry.toString(), registry.has(kept));

        // resume: the stored experiment is open again, its trials kept
        browser.click(row.formatted(kept) + "button[data-action='resume']");
        browser.waitFor(d -> browser.findAll(row.formatted(kept) + "button[data-action='stop']").size() == 1);
        assertTrue(browser.text("#experiments-message"), browser.text("#experiments-message").startsWith("Resumed " + kept));
        JsonNode trials = runtime.get("trial-jobs?experiment_id=" + kept);
        assertEquals(1, trials.size());

        // its one trial reported nothing: its page says so rather than drawing an empty chart
        browser.open(runtime.endpoint() + "ui/#/experiments/" + kept + "/trials/" + trials.get(0).get("trialJobId").asText());
        browser.waitFor(d -> "(none: the trial reported no intermediate result)".equals(browser.text("#intermediate-note")));
        assertFalse(browser.find("#intermediate-chart").isDisplayed());
        assertFalse(runtime.console(), runtime.console().contains("SEVERE"));
    }

    private String create(Path code, String name) throws Exception {
        Path config = Files.writeString(code.resolve(name + ".yml"), """
                experimentName: %s
                searchSpace:
                  x: {_type: choice, _value: [1]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                """.formatted(name));
        int before = runtime.console().length();
        runtime.type("nni:create " + config);
        Pattern created = Pattern.compile("experiment (\\w{8}) [A-Z_]+ in ");
        String[] id = new String[1];
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            Matcher m = created.matcher(runtime.console().substring(before));
            if (m.find()) {
                id[0] = m.group(1);
            }
            return id[0] != null;
        });
        return id[0];
    }
}
