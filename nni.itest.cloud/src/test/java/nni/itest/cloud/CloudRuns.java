package nni.itest.cloud;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.TrialRecord;

/**
 * What the cloud platforms' process-level tests share: the trial they run (unmodified NNI trial code),
 * a runtime home configured for fast refreshes, and the checks on what an experiment left behind.
 */
public final class CloudRuns {

    /** Intermediate results each successful trial reports, before its final one. */
    static final int STEPS = 6;

    /**
     * NNI trial code: reports {@link #STEPS} intermediate results ({@code x + step}) and a final one
     * ({@code 2x}); with {@code mode} other than {@code ok} it first sleeps, to be cancelled,
     * failed by its job or made to vanish; with a {@code release} file it waits for that file after
     * its first three results. {@code ps.py} is the second task role of multi-role jobs.
     */
    static Path trialCode(Path folder) throws IOException {
        Files.createDirectories(folder);
        Files.writeString(folder.resolve("trial.py"), """
                import os, time
                import nni
                params = nni.get_next_parameter()
                if params.get('mode', 'ok') != 'ok':
                    time.sleep(120)
                x = params.get('x', 1)
                for step in range(%d):
                    if step == 3 and 'release' in params:
                        deadline = time.time() + 120
                        while not os.path.exists(params['release']) and time.time() < deadline:
                            time.sleep(0.1)
                    nni.report_intermediate_result(x + step)
                    time.sleep(0.4)
                nni.report_final_result(x * 2)
                """.formatted(STEPS));
        Files.writeString(folder.resolve("ps.py"), """
                import json, os, sys, time
                with open(os.path.join(os.environ['NNI_SYS_DIR'], 'parameter.cfg')) as f:
                    params = json.load(f)['parameters']
                if params.get('mode') == 'fail':
                    time.sleep(1)
                    sys.exit(7)
                time.sleep(120)
                """);
        return folder;
    }

    /**
     * With one trial at a time: waits for the first trial to run, cancels it through NNI's REST API,
     * and waits for the next one to run.
     *
     * @return the cancelled trial's id and the next one's
     */
    static String[] cancelTheFirstTrialAndAwaitTheNext(nni.itest.launcher.RuntimeProcess runtime) throws Exception {
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(180)).ignoreExceptions()
                .until(() -> runtime.get("trial-jobs?status=RUNNING").size() == 1);
        String cancelled = runtime.get("trial-jobs?status=RUNNING").get(0).get("trialJobId").asText();
        assertEquals(200, runtime.request("DELETE", "trial-jobs/" + cancelled, null).statusCode());
        String[] next = new String[1];
        // one reading of the running trials per poll: two readings can straddle a trial's end
        org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(180)).ignoreExceptions().until(() -> {
            com.fasterxml.jackson.databind.JsonNode running = runtime.get("trial-jobs?status=RUNNING");
            if (running.size() == 1 && !running.get(0).get("trialJobId").asText().equals(cancelled)) {
                next[0] = running.get(0).get("trialJobId").asText();
                return true;
            }
            return false;
        });
        return new String[] {cancelled, next[0]};
    }

    /** Writes {@code etc/<pid>.cfg} into a runtime home, so that the platform starts with it. */
    public static Path home(Path home, String pid, Map<String, String> settings) throws IOException {
        Files.createDirectories(home.resolve("etc"));
        StringBuilder cfg = new StringBuilder();
        settings.forEach((key, value) -> cfg.append(key).append('=').append(value).append('\n'));
        Files.writeString(home.resolve("etc").resolve(pid + ".cfg"), cfg);
        return home;
    }

    public static String experimentId(String console) {
        Matcher started = Pattern.compile("experiment (\\w{8}) started").matcher(console);
        assertTrue(console, started.find());
        return started.group(1);
    }

    /** Every trial with status SUCCEEDED has all its metrics, each stored exactly once. */
    static void assertEveryMetricOnce(ExperimentStore store) {
        for (TrialRecord trial : store.trials()) {
            if (!trial.status().equals("SUCCEEDED")) {
                continue;
            }
            List<MetricRecord> periodical = store.metrics(trial.id(), "PERIODICAL");
            assertEquals(trial.id() + ": " + periodical, STEPS, periodical.size());
            assertEquals(STEPS, periodical.stream().map(MetricRecord::sequence).distinct().count());
            assertEquals(trial.id(), 1, store.metrics(trial.id(), "FINAL").size());
        }
    }

    /** @return the status of each trial by the value of one of its parameters */
    static Map<String, String> statusBy(ExperimentStore store, String parameter) throws IOException {
        Map<String, String> statuses = new java.util.TreeMap<>();
        for (TrialRecord trial : store.trials()) {
            String value = nni.itest.launcher.RuntimeProcess.JSON.readTree(trial.parameters()).get("parameters").get(parameter).asText();
            statuses.put(value, trial.status());
        }
        return statuses;
    }

    /**
     * No file below the folders, nor the console, contains {@code secret}; except each experiment's
     * {@code secrets.json}, where the runtime keeps the real values for {@code resume} (mode 0600).
     */
    public static void assertNowhere(String secret, String console, Path... folders) throws IOException {
        assertFalse("the console shows the secret", console.contains(secret));
        for (Path folder : folders) {
            try (Stream<Path> files = Files.walk(folder)) {
                for (Path file : files.filter(Files::isRegularFile).filter(f -> !f.getFileName().toString().equals("secrets.json")).toList()) {
                    byte[] bytes = Files.readAllBytes(file);
                    assertFalse(file + " contains the secret", new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1).contains(secret));
                }
            }
        }
    }
}
