package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The machines page in a real browser against the runnable jar: a fake {@code nvidia-smi} first on
 * the runtime's PATH reports two GPUs, the experiment's one trial is placed on the free one, and
 * the page shows each GPU's utilisation and memory as nvidia-smi reported them and the trial on
 * the GPU it holds.
 */
public class WebUiMachinesIT {

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
    public void showsEachGpuAndTheTrialHoldingIt() throws Exception {
        browser = Browser.start(Path.of("target", "screenshots"));
        Path bin = folder.newFolder("bin").toPath();
        fakeNvidiaSmi(bin.resolve("nvidia-smi"));
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), "n=0; while [ ! -e release ] && [ $n -lt 1500 ]; do n=$((n+1)); sleep 0.2; done\n");
        Path config = Files.writeString(code.resolve("gpus.yml"), """
                experimentName: gpus
                searchSpace:
                  x: {_type: choice, _value: [1]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialGpuNumber: 1
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                  useActiveGpu: false
                """);
        runtime = RuntimeProcess.startWithShell(Map.of("PATH", bin + ":" + System.getenv("PATH")),
                folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath());
        String id = create(config);
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("trial-jobs?experiment_id=" + id + "&status=RUNNING").size() == 1);
        JsonNode trial = runtime.get("trial-jobs?experiment_id=" + id).get(0);
        String trialId = trial.get("trialJobId").asText();

        browser.open(runtime.endpoint() + "ui/#/machines");
        String session = ".machine-session[data-experiment='" + id + "'] ";
        browser.waitFor(d -> !browser.findAll(session + "tr[data-gpu='0'] td[data-trials] a").isEmpty());
        assertEquals(List.of(trialId), browser.texts(session + "tr[data-gpu='0'] td[data-trials] a"));
        assertEquals(List.of(""), browser.texts(session + "tr[data-gpu='1'] td[data-trials]"));
        assertEquals("87 %", browser.text(session + "tr[data-gpu='0'] td[data-utilization]"));
        assertEquals("1024 / 16384 MiB", browser.text(session + "tr[data-gpu='0'] td[data-memory]"));
        assertEquals("12 %", browser.text(session + "tr[data-gpu='1'] td[data-utilization]"));
        assertEquals("15000 / 16384 MiB", browser.text(session + "tr[data-gpu='1'] td[data-memory]"));
        String state = browser.text(session + "[data-session-state]");
        assertTrue(state, state.startsWith("open: 1 running"));
        browser.screenshot("machines");

        // the trial ends: the GPU is given back and the page shows it free
        Files.writeString(code.resolve("release"), "");
        browser.waitFor(d -> browser.findAll(session + "tr[data-gpu='0'] td[data-trials] a").isEmpty());
        assertFalse(runtime.console(), runtime.console().contains("SEVERE"));
    }

    /**
     * The config tab shows the file as the user wrote it (its comments and order) beside the
     * canonical form, and offers it as a download.
     */
    @Test(timeout = 300_000)
    public void theConfigTabShowsTheFileAsGiven() throws Exception {
        browser = Browser.start(Path.of("target", "screenshots"));
        Path code = folder.newFolder("code").toPath();
        String text = """
                # the user's own words: kept as written
                experimentName: given
                trialCommand: "true"
                trialCodeDirectory: .
                searchSpace: {x: {_type: choice, _value: [1]}}   # one point
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """;
        Path config = Files.writeString(code.resolve("given.yml"), text);
        runtime = RuntimeProcess.startWithShell(folder.newFolder("home").toPath(), folder.newFolder("experiments").toPath());
        String id = create(config);

        browser.open(runtime.endpoint() + "ui/#/experiments/" + id + "/config");
        browser.waitFor(d -> {
            String shown = browser.text("#given-view");
            return shown != null && !shown.isEmpty();
        });
        assertEquals(text.strip(), browser.text("#given-view"));
        assertEquals("(given.yml; secrets masked)", browser.text("#given-name"));
        assertTrue(browser.text("#config-view"), browser.text("#config-view").contains("\"experimentName\": \"given\""));
        assertEquals(List.of(id + "-as-given-given.yml"), browser.attributes("a[data-export='config-given']", "download"));
        // WebDriver waits for the promise a script returns
        Object downloaded = browser.script("return fetch(document.querySelector(\"a[data-export='config-given']\").href)"
                + ".then(r => r.text());");
        assertEquals(text, downloaded);
        browser.screenshot("config-given");
    }

    /** Two GPUs with utilisation and memory; GPU 1 runs a process that is not ours, so the trial gets GPU 0. */
    private static void fakeNvidiaSmi(Path fake) throws Exception {
        Files.writeString(fake, """
                #!/bin/sh
                [ "$1 $2" = "-q -x" ] || exit 9
                cat <<'XML'
                <?xml version="1.0" ?>
                <!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
                <nvidia_smi_log><attached_gpus>2</attached_gpus>
                <gpu id="00000000:01:00.0"><minor_number>0</minor_number>
                <fb_memory_usage><total>16384 MiB</total><reserved>0 MiB</reserved><used>1024 MiB</used><free>15360 MiB</free></fb_memory_usage>
                <utilization><gpu_util>87 %</gpu_util><memory_util>5 %</memory_util></utilization>
                <processes></processes></gpu>
                <gpu id="00000000:02:00.0"><minor_number>1</minor_number>
                <fb_memory_usage><total>16384 MiB</total><reserved>0 MiB</reserved><used>15000 MiB</used><free>1384 MiB</free></fb_memory_usage>
                <utilization><gpu_util>12 %</gpu_util><memory_util>40 %</memory_util></utilization>
                <processes><process_info><pid>4711</pid></process_info></processes></gpu>
                </nvidia_smi_log>
                XML
                """);
        assertTrue(fake.toFile().setExecutable(true));
    }

    private String create(Path config) throws Exception {
        return runtime.create(config, Duration.ofSeconds(60));
    }
}
