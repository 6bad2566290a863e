package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Issue 25 item 1: NNI 3.0's own client ({@code nni.experiment.Experiment.connect}) and nnictl,
 * from the real package ({@link RealNni}), against a runtime running one experiment whose trials
 * use NNI's own trial SDK. nnictl finds the runtime through NNI's registry under {@code $HOME}
 * (a folder of the test's).
 */
public class RealNniToolsIT {

    private static final Pattern STARTED = Pattern.compile("experiment (\\w{8}) started in (\\S+)");

    /** What {@code Experiment.connect(port)} gives, as JSON; then the four updates. */
    private static final String CLIENT = """
            import json, sys
            from nni.experiment import Experiment
            exp = Experiment.connect(int(sys.argv[1]))
            out = {'id': exp.id, 'status': exp.get_status()}
            profile = exp.get_experiment_profile()
            out['profileId'] = profile['id']
            out['jobs'] = sorted(job.trialJobId for job in exp.list_trial_jobs())
            out['statistics'] = {s['trialJobStatus']: s['trialJobNumber'] for s in exp.get_job_statistics()}
            out['metrics'] = {trial: len(metrics) for trial, metrics in exp.get_job_metrics().items()}
            out['export'] = sorted([d.parameter['x'], float(d.value['default'] if isinstance(d.value, dict) else d.value)]
                                   for d in exp.export_data())
            exp.update_trial_concurrency(3)
            exp.update_max_trial_number(7)
            exp.update_max_experiment_duration('2h')
            exp.update_search_space({'x': {'_type': 'choice', '_value': [1, 2, 3, 4, 5, 6, 7]}})
            params = exp.get_experiment_profile()['params']
            out['updated'] = [params['trialConcurrency'], params['maxTrialNumber'], params['maxExperimentDuration'],
                              params['searchSpace']['x']['_value']]
            print('CLIENT ' + json.dumps(out))
            """;

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test(timeout = 900_000)
    public void nnisClientAndNnictlWorkAgainstTheRuntime() throws Exception {
        Path python = RealNni.python("RealNniToolsIT");
        Path code = folder.newFolder("code").toPath();
        Path release = code.resolve("release");
        // the real trial SDK: two trials end at once, the others wait for the release file
        Files.writeString(code.resolve("trial.py"), """
                import os, time
                import nni
                x = nni.get_next_parameter()['x']
                nni.report_intermediate_result(x / 2)
                nni.report_intermediate_result({'default': x, 'half': x / 2})
                while nni.get_sequence_id() >= 2 and not os.path.exists('%s'):
                    time.sleep(0.1)
                nni.report_final_result({'default': x * 10, 'other': 1})
                """.formatted(release));
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3, 4, 5, 6]}
                trialCommand: %s trial.py
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 6
                tuner:
                  name: GridSearch
                trainingService:
                  platform: local
                """.formatted(python));
        Path home = folder.newFolder("home").toPath();
        Map<String, String> environment = Map.of("HOME", home.toString());
        runtime = RuntimeProcess.start(environment, RealNni.patientHome(folder.newFolder("runtime").toPath(), python),
                home.resolve("nni-experiments"),
                "run", config.toString());
        await().atMost(Duration.ofSeconds(400)).ignoreExceptions().until(() -> runtime.get("trial-jobs?status=SUCCEEDED").size() == 2
                && runtime.get("trial-jobs?status=RUNNING").size() == 2);
        Matcher started = STARTED.matcher(runtime.console());
        assertTrue(runtime.console(), started.find());
        String id = started.group(1);
        int port = java.net.URI.create(runtime.endpoint()).getPort();

        // the real SDK's results as the runtime stored them: intermediate (a number, a dict), final (a dict)
        JsonNode metrics = runtime.get("metric-data");
        long finals = 0;
        for (JsonNode metric : metrics) {
            String data = RuntimeProcess.JSON.readTree(metric.get("data").asText()).toString();
            if (metric.get("type").asText().equals("FINAL")) {
                finals++;
                assertTrue(data, data.contains("other"));
            }
        }
        assertEquals(metrics.toString(), 2, finals);

        Path client = Files.writeString(folder.getRoot().toPath().resolve("client.py"), CLIENT);
        String clientOut = run(environment, python.toString(), client.toString(), Integer.toString(port));
        Matcher line = Pattern.compile("CLIENT (.*)").matcher(clientOut);
        assertTrue(clientOut, line.find());
        JsonNode answer = RuntimeProcess.JSON.readTree(line.group(1));
        assertEquals(clientOut, id, answer.get("id").asText());
        assertEquals(clientOut, id, answer.get("profileId").asText());
        assertEquals(clientOut, "RUNNING", answer.get("status").asText());
        assertEquals(clientOut, 4, answer.get("jobs").size());
        assertEquals(clientOut, 2, answer.get("statistics").get("SUCCEEDED").asInt());
        assertEquals(clientOut, "[[1,10.0],[2,20.0]]", answer.get("export").toString().replace(" ", ""));
        assertEquals(clientOut, "[3,7,\"2h\",[1,2,3,4,5,6,7]]", answer.get("updated").toString());

        String list = nnictl(environment, python, "experiment", "list");
        assertTrue(list, list.contains(id) && list.contains("RUNNING"));
        String show = nnictl(environment, python, "experiment", "show", id);
        assertTrue(show, show.contains("\"id\":\"" + id + "\"") || show.contains("\"id\": \"" + id + "\""));
        Path exported = folder.getRoot().toPath().resolve("export.json");
        nnictl(environment, python, "experiment", "export", id, "--type", "json", "--filename", exported.toString());
        JsonNode rows = RuntimeProcess.JSON.readTree(exported.toFile());
        assertEquals(rows.toString(), 2, rows.size());
        String trials = nnictl(environment, python, "trial", "ls", id);
        List<String> running = new ArrayList<>();
        runtime.get("trial-jobs?status=RUNNING").forEach(t -> running.add(t.get("trialJobId").asText()));
        assertTrue(trials, running.stream().allMatch(trials::contains));
        nnictl(environment, python, "trial", "kill", id, "--trial_id", running.get(0));
        await().atMost(Duration.ofSeconds(60)).until(() -> runtime.get("trial-jobs/" + running.get(0)).get("status").asText()
                .equals("USER_CANCELED"));
        nnictl(environment, python, "update", "concurrency", id, "--value", "4");
        assertEquals(4, runtime.get("experiment").get("params").get("trialConcurrency").asInt());
        String stopped = nnictl(environment, python, "stop", id);
        // run's code for an experiment stopped before its end
        int exit = runtime.awaitExit(Duration.ofSeconds(120));
        assertEquals(runtime.console() + "\n" + stopped, 3, exit);
    }

    /** What {@code Experiment.connect(port)} sees of the experiment the port serves. */
    private static final String CONNECT = """
            import json, sys
            from nni.experiment import Experiment
            exp = Experiment.connect(int(sys.argv[1]))
            out = {'id': exp.id, 'status': exp.get_status(), 'jobs': sorted(job.trialJobId for job in exp.list_trial_jobs())}
            print('CLIENT ' + json.dumps(out))
            """;

    /**
     * Issue 29 item 4: an experiment that ended DONE stays open in the runtime for reading; NNI's client
     * and nnictl, which speak to the port without naming an experiment, reach the one created next
     * (they were refused with 409, and nnictl said the REST server was not running).
     */
    @Test(timeout = 900_000)
    public void anEndedExperimentDoesNotHideTheNextFromNnisClientAndNnictl() throws Exception {
        Path python = RealNni.python("RealNniToolsIT");
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), """
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "1"}'
                echo "NNISDK_MEb'$m'"
                while [ -e "$NNI_CODE_DIR/hold" ] && [ ! -e "$NNI_CODE_DIR/release" ]; do sleep 0.2; done
                """);
        String config = """
                experimentName: %s
                searchSpace:
                  x: {_type: choice, _value: [1, 2, 3]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: %d
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """;
        Path first = Files.writeString(code.resolve("first.yml"), config.formatted("first", 1));
        Path second = Files.writeString(code.resolve("second.yml"), config.formatted("second", 3));
        Path home = folder.newFolder("home").toPath();
        Map<String, String> environment = Map.of("HOME", home.toString());
        Path experiments = home.resolve("nni-experiments");
        runtime = RuntimeProcess.startWithShell(environment, folder.newFolder("runtime").toPath(), experiments);
        String ended = runtime.create(first, Duration.ofSeconds(300));
        try {
            await().atMost(Duration.ofSeconds(300)).ignoreExceptions()
                    .until(() -> runtime.get("check-status").get("status").asText().equals("DONE"));
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError("experiment " + ended + " did not end DONE; console:\n" + runtime.console()
                    + "\nlog:\n" + runtime.log(), e);
        }
        assertEquals(ended, runtime.get("experiment").get("id").asText());

        Files.writeString(code.resolve("hold"), "");
        runtime.create(second, Duration.ofSeconds(300));
        Path registry = experiments.resolve(".experiment");
        await().atMost(Duration.ofSeconds(300)).ignoreExceptions().until(() -> RuntimeProcess.JSON.readTree(registry.toFile()).size() == 2);
        String next = null;
        for (java.util.Iterator<String> ids = RuntimeProcess.JSON.readTree(registry.toFile()).fieldNames(); ids.hasNext(); ) {
            String id = ids.next();
            next = id.equals(ended) ? next : id;
        }
        String held = "experiments/" + next + "/api/v1/nni/trial-jobs?status=RUNNING";
        String created = next;
        await().atMost(Duration.ofSeconds(300)).ignoreExceptions().until(() -> RuntimeProcess.JSON.readTree(
                java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(runtime.endpoint() + held)).build(),
                        java.net.http.HttpResponse.BodyHandlers.ofString()).body()).size() == 1);
        int port = java.net.URI.create(runtime.endpoint()).getPort();

        Path client = Files.writeString(folder.getRoot().toPath().resolve("connect.py"), CONNECT);
        String clientOut = run(environment, python.toString(), client.toString(), Integer.toString(port));
        Matcher line = Pattern.compile("CLIENT (.*)").matcher(clientOut);
        assertTrue(clientOut, line.find());
        JsonNode answer = RuntimeProcess.JSON.readTree(line.group(1));
        assertEquals(clientOut, created, answer.get("id").asText());
        assertEquals(clientOut, "RUNNING", answer.get("status").asText());
        assertEquals(clientOut, 1, answer.get("jobs").size());
        String trials = nnictl(environment, python, "trial", "ls", created);
        assertTrue(trials, trials.contains(answer.get("jobs").get(0).asText()) && !trials.contains("not running"));
        Files.writeString(code.resolve("release"), "");
    }

    private String nnictl(Map<String, String> environment, Path python, String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of(python.toString(), "-c",
                "import sys; sys.argv[0] = 'nnictl'; from nni.tools.nnictl.nnictl import parse_args; parse_args()"));
        command.addAll(List.of(arguments));
        return run(environment, command.toArray(String[]::new));
    }

    /** @return the output of a process that must end with code 0 */
    private String run(Map<String, String> environment, String... command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder(command).directory(folder.getRoot()).redirectErrorStream(true);
        builder.environment().putAll(environment);
        Process process = builder.start();
        process.getOutputStream().close();
        byte[] output = process.getInputStream().readAllBytes();
        assertTrue(String.join(" ", command) + " did not end", process.waitFor(120, TimeUnit.SECONDS));
        String text = new String(output, StandardCharsets.UTF_8);
        assertEquals(String.join(" ", command) + ":\n" + text, 0, process.exitValue());
        return text;
    }
}
