package nni.manager.internal.experiment;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.experiment.ExperimentUpdate;
import nni.api.model.TrialStatus;
import nni.api.tuner.Assessor;
import nni.store.MetricRecord;

/**
 * The experiment engine on the real local platform: real trial processes (python3 with the
 * shipped SDK, bash), the real SQLite store, real signals.
 */
public class LocalExperimentTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Experiment experiment;

    @After
    public void stopExperiment() {
        if (experiment != null) {
            experiment.stop(Duration.ofSeconds(10));
        }
    }

    private Experiments setup(String file, String content) throws IOException {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve(file), content);
        return new Experiments(code, folder.newFolder("experiments").toPath());
    }

    static final String PYTHON_TRIAL = """
            import json, os
            import nni
            params = nni.get_next_parameter()
            names = ['NNI_PLATFORM', 'NNI_EXP_ID', 'NNI_TRIAL_JOB_ID', 'NNI_SYS_DIR', 'NNI_OUTPUT_DIR',
                     'NNI_TRIAL_SEQ_ID', 'MULTI_PHASE', 'NNI_CODE_DIR', 'CUDA_VISIBLE_DEVICES']
            seen = {name: os.environ.get(name) for name in names}
            seen['cwd'] = os.getcwd()
            seen['params'] = params
            seen['ids'] = [nni.get_trial_id(), nni.get_experiment_id(), nni.get_sequence_id()]
            with open(os.path.join(os.environ['NNI_OUTPUT_DIR'], 'seen.json'), 'w') as f:
                json.dump(seen, f)
            for step in range(3):
                nni.report_intermediate_result(params['x'] + step / 10)
            nni.report_final_result({'default': params['x'] * 2.0, 'loss': 1})
            """;

    @Test(timeout = 60_000)
    public void aJavaTunerAnswersATrialThatAsksForMoreParameters() throws Exception {
        // the shipped SDK's second get_next_parameter() asks (REQUEST_PARAMETER); the tuner answers, as NNI's dispatcher does
        Experiments setup = setup("trial.py", """
                import nni
                first = nni.get_next_parameter()
                second = nni.get_next_parameter()
                nni.report_final_result(first['x'] * 100 + second['x'])
                """);
        setup.concurrency = 1;
        setup.maxTrials = 2;
        ListTuner tuner = new ListTuner(100);
        experiment = setup.start("multiph1", tuner, null);

        assertEquals(ExperimentStatus.DONE, experiment.settled().get(50, TimeUnit.SECONDS));
        // trial 0: ids 0 then 1; trial 1: ids 2 then 3 (ids continue after those given to running trials)
        assertEquals(List.of(1.0, 203.0), experiment.trials().stream().map(TrialView::finalValue).toList());
        for (TrialView trial : experiment.trials()) {
            Path dir = setup.workingDirectory.resolve("multiph1").resolve("trials").resolve(trial.job().id());
            JsonNode second = JSON.readTree(dir.resolve("parameter_1.cfg").toFile());
            assertEquals(trial.job().id(), second.get("trial_job_id").asText());
            assertEquals(1, second.get("parameter_index").asInt());
        }
        assertEquals(2, experiment.store().events().stream().filter(e -> e.event().equals("ADD_HYPERPARAMETER")).count());
    }

    @Test(timeout = 60_000)
    public void pythonTrialsWithTheShippedSdkRunToDone() throws Exception {
        Experiments setup = setup("trial.py", PYTHON_TRIAL);
        setup.concurrency = 2;
        setup.maxTrials = 4;
        ListTuner tuner = new ListTuner(100);
        experiment = setup.start("pyexp001", tuner, null);

        assertEquals(ExperimentStatus.DONE, experiment.settled().get(50, TimeUnit.SECONDS));
        List<TrialView> trials = experiment.trials();
        assertEquals(4, trials.size());
        assertEquals(List.of(0L, 1L, 2L, 3L), trials.stream().map(TrialView::sequenceId).toList());
        for (TrialView trial : trials) {
            assertEquals(trial.job().message(), TrialStatus.SUCCEEDED, trial.job().status());
            assertTrue(trial.job().id().matches("[a-zA-Z][a-zA-Z0-9]{4}"));
            Path dir = setup.workingDirectory.resolve("pyexp001").resolve("trials").resolve(trial.job().id());
            assertEquals(trial.packed(), Files.readString(dir.resolve("parameter.cfg")));
            JsonNode seen = JSON.readTree(dir.resolve("seen.json").toFile());
            assertEquals("local", seen.get("NNI_PLATFORM").asText());
            assertEquals("pyexp001", seen.get("NNI_EXP_ID").asText());
            assertEquals(trial.job().id(), seen.get("NNI_TRIAL_JOB_ID").asText());
            assertEquals(dir.toString(), seen.get("NNI_SYS_DIR").asText());
            assertEquals(dir.toString(), seen.get("NNI_OUTPUT_DIR").asText());
            assertEquals(Long.toString(trial.sequenceId()), seen.get("NNI_TRIAL_SEQ_ID").asText());
            assertEquals("false", seen.get("MULTI_PHASE").asText());
            assertEquals(setup.codeDirectory.toString(), seen.get("NNI_CODE_DIR").asText());
            assertEquals(setup.codeDirectory.toRealPath().toString(), seen.get("cwd").asText());
            assertTrue(seen.get("CUDA_VISIBLE_DEVICES").isNull());
            assertEquals(trial.sequenceId(), seen.get("params").get("x").asLong());
            assertEquals(trial.job().id(), seen.get("ids").get(0).asText());
            assertEquals(trial.sequenceId(), seen.get("ids").get(2).asLong());
            assertEquals(Double.valueOf(trial.sequenceId() * 2.0), trial.finalValue());
        }
        assertEquals(Map.of(0L, 0.0, 1L, 2.0, 2L, 4.0, 3L, 6.0), tuner.results);
        assertEquals(Map.of(0L, true, 1L, true, 2L, true, 3L, true), tuner.ended);
        List<MetricRecord> finals = experiment.store().metrics(null, "FINAL");
        assertEquals(4, finals.size());
        // NNI stores the SDK's JSON-encoded value encoded once more
        assertTrue(finals.stream().allMatch(m -> m.data().startsWith("\"{\\\"default\\\"")));
        assertEquals(12, experiment.store().metrics(null, "PERIODICAL").size());
        assertEquals(4, experiment.store().trials().stream().filter(t -> t.status().equals("SUCCEEDED")).count());
    }

    @Test(timeout = 60_000)
    public void handWrittenMetricFileAndStdoutMarkersSurviveMalformedReports() throws Exception {
        String script = """
                emit() { local data="$1"$'\\n'; printf 'ME%06d%s' "${#data}" "$data" >> "$NNI_SYS_DIR/.nni/metrics"; }
                metric() { echo '{"parameter_id": 0, "trial_job_id": "'"$NNI_TRIAL_JOB_ID"'", "type": "'"$1"'", "sequence": '"$2"', "value": "'"$3"'"}'; }
                emit "$(metric PERIODICAL 0 1.5)"
                emit '{"this is": not json'
                printf 'MEzz0012garbage!' >> "$NNI_SYS_DIR/.nni/metrics"
                emit "$(metric PERIODICAL 1 2.5)"
                echo "an ordinary log line"
                echo "prefix NNISDK_MEb'$(metric PERIODICAL 2 3.5)'"
                echo "NNISDK_MEb'{broken'"
                echo "NNISDK_MEb'$(metric FINAL 0 4.5)'"
                """;
        Experiments setup = setup("trial.sh", script);
        setup.trialCommand = "bash trial.sh";
        setup.maxTrials = 1;
        experiment = setup.start("shexp001", new ListTuner(10), null);

        assertEquals(ExperimentStatus.DONE, experiment.settled().get(30, TimeUnit.SECONDS));
        TrialView trial = experiment.trials().get(0);
        assertEquals(TrialStatus.SUCCEEDED, trial.job().status());
        Map<String, String> metrics = new TreeMap<>();
        for (MetricRecord metric : experiment.store().metrics(trial.job().id(), null)) {
            metrics.put(metric.type() + metric.sequence(), metric.data());
        }
        assertEquals(Map.of("FINAL0", "\"4.5\"", "PERIODICAL0", "\"1.5\"", "PERIODICAL1", "\"2.5\"",
                "PERIODICAL2", "\"3.5\""), metrics);
        // the file and stdout are separate channels: their relative order is not defined
        assertEquals(List.of(1.5, 2.5, 3.5), trial.intermediate().stream().sorted().toList());
        assertEquals(Double.valueOf(4.5), trial.finalValue());
    }

    @Test(timeout = 60_000)
    public void cancelKillsTheWholeProcessTree() throws Exception {
        String script = """
                sleep 300 &
                echo $! >> "$NNI_OUTPUT_DIR/pids"
                bash -c 'sleep 300 & echo $! >> "$NNI_OUTPUT_DIR/pids"; wait' &
                echo $! >> "$NNI_OUTPUT_DIR/pids"
                echo $$ >> "$NNI_OUTPUT_DIR/pids"
                touch "$NNI_OUTPUT_DIR/ready"
                wait
                """;
        Experiments setup = setup("trial.sh", script);
        setup.trialCommand = "bash trial.sh";
        setup.maxTrials = 1;
        experiment = setup.start("cancel01", new ListTuner(10), null);
        await().atMost(Duration.ofSeconds(20)).until(() -> !experiment.trials().isEmpty());
        String id = experiment.trials().get(0).job().id();
        Path dir = setup.workingDirectory.resolve("cancel01").resolve("trials").resolve(id);
        await().atMost(Duration.ofSeconds(20)).until(() -> Files.exists(dir.resolve("ready"))
                && Files.readAllLines(dir.resolve("pids")).size() == 4);
        Set<Long> pids = Files.readAllLines(dir.resolve("pids")).stream().map(Long::parseLong).collect(Collectors.toSet());
        assertTrue(pids.stream().allMatch(LocalExperimentTest::running));

        experiment.cancelTrial(id);

        await().atMost(Duration.ofSeconds(20)).until(() -> experiment.trials().get(0).job().status() == TrialStatus.USER_CANCELED);
        await().atMost(Duration.ofSeconds(10)).until(() -> pids.stream().noneMatch(LocalExperimentTest::running));
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(10, TimeUnit.SECONDS));
        assertEquals("USER_CANCELED", experiment.store().trials().get(0).status());
    }

    /**
     * Tracking a running trial costs no JVM thread: 150 trials running at once add no more threads
     * than 1 does (the JDK used to keep one process reaper thread per running child). Each trial's
     * exit status still arrives: cancelled trials end USER_CANCELED, the sleepers are gone.
     */
    @Test(timeout = 360_000)
    public void runningTrialsCostNoThreadEach() throws Exception {
        int many = 150;
        Experiments setup = setup("trial.sh", "echo $$ > \"$NNI_OUTPUT_DIR/pid.txt\"\nexec sleep 300\n");
        setup.trialCommand = "bash trial.sh";
        setup.concurrency = many;
        setup.maxTrials = many;
        experiment = setup.start("threads", new ListTuner(many), null);
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200)).until(() -> experiment.trials().size() == many
                && experiment.trials().stream().allMatch(t -> t.job().status() == TrialStatus.RUNNING));
        int withMany = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        Path trials = setup.workingDirectory.resolve("threads").resolve("trials");
        List<String> ids = experiment.trials().stream().map(t -> t.job().id()).toList();
        await().atMost(Duration.ofSeconds(30)).until(() -> ids.stream().allMatch(id -> Files.exists(trials.resolve(id).resolve("pid.txt"))));
        Set<Long> pids = ids.stream().map(id -> {
            try {
                return Long.parseLong(Files.readString(trials.resolve(id).resolve("pid.txt")).trim());
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).collect(Collectors.toSet());
        assertTrue(pids.stream().allMatch(LocalExperimentTest::running));

        // 150 processes told to end and reaped on a loaded machine (fresh-ci at load 20-40 ran past 30 s)
        experiment.stop(Duration.ofSeconds(150));
        experiment.settled().get(30, TimeUnit.SECONDS);
        List<String> notCancelled = experiment.trials().stream().filter(t -> t.job().status() != TrialStatus.USER_CANCELED)
                .map(t -> t.job().id() + " " + t.job().status()).toList();
        assertEquals(List.of(), notCancelled);
        await().atMost(Duration.ofSeconds(20)).until(() -> pids.stream().noneMatch(LocalExperimentTest::running));

        // the same experiment with one trial running: the baseline of the engine's own threads
        Experiments one = new Experiments(setup.codeDirectory, folder.newFolder("one").toPath());
        one.trialCommand = "bash trial.sh";
        one.maxTrials = 1;
        experiment = one.start("thread1", new ListTuner(1), null);
        await().atMost(Duration.ofSeconds(30)).until(() -> experiment.trials().size() == 1
                && experiment.trials().get(0).job().status() == TrialStatus.RUNNING);
        int withOne = java.lang.management.ManagementFactory.getThreadMXBean().getThreadCount();
        System.out.println("JVM threads with " + many + " trials running: " + withMany + "; with 1: " + withOne);
        assertTrue("threads with " + many + " running trials: " + withMany + ", with one: " + withOne, withMany < withOne + 20);
    }

    /** @return true while the process exists and is not a zombie */
    static boolean running(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
        } catch (IOException e) {
            return false;
        }
    }

    @Test(timeout = 60_000)
    public void maxTrialDurationStopsATrialEarly() throws Exception {
        Experiments setup = setup("trial.sh", "sleep 120\n");
        setup.trialCommand = "bash trial.sh";
        setup.maxTrials = 1;
        setup.maxTrialDuration = Duration.ofMillis(500);
        ListTuner tuner = new ListTuner(10);
        experiment = setup.start("duration", tuner, null);

        assertEquals(ExperimentStatus.DONE, experiment.settled().get(30, TimeUnit.SECONDS));
        TrialView trial = experiment.trials().get(0);
        assertEquals(TrialStatus.EARLY_STOPPED, trial.job().status());
        assertTrue(trial.job().earlyStopped());
        assertEquals(Map.of(0L, false), tuner.ended);
    }

    @Test(timeout = 60_000)
    public void theAssessorsVerdictStopsATrialEarly() throws Exception {
        String script = """
                import time, nni
                params = nni.get_next_parameter()
                for step in range(3000):
                    nni.report_intermediate_result(step)
                    time.sleep(0.1)
                nni.report_final_result(1000)
                """; // 5 minutes: it is stopped early however slowly a loaded machine handles its results
        Experiments setup = setup("trial.py", script);
        setup.maxTrials = 1;
        Assessor stopAtThree = (trialId, history) -> history.size() >= 3 ? Assessor.Verdict.BAD : Assessor.Verdict.GOOD;
        ListTuner tuner = new ListTuner(10);
        experiment = setup.start("assessed", tuner, stopAtThree);

        assertEquals(ExperimentStatus.DONE, experiment.settled().get(40, TimeUnit.SECONDS));
        TrialView trial = experiment.trials().get(0);
        assertEquals(TrialStatus.EARLY_STOPPED, trial.job().status());
        assertTrue(trial.intermediate().size() >= 3);
        assertTrue(trial.intermediate().size() < 3000);
        assertEquals(null, trial.finalValue());
        assertFalse(tuner.ended.get(0L));
    }

    @Test(timeout = 60_000)
    public void limitsAndRuntimeUpdates() throws Exception {
        Experiments setup = setup("trial.py", PYTHON_TRIAL);
        setup.maxTrials = 2;
        experiment = setup.start("updates1", new ListTuner(100), null);
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(30, TimeUnit.SECONDS));
        assertEquals(2, experiment.trials().size());

        experiment.update(ExperimentUpdate.of(ExperimentUpdate.TRIAL_CONCURRENCY, 2).value());
        experiment.update(ExperimentUpdate.of(ExperimentUpdate.MAX_TRIAL_NUMBER, 5).value());
        await().atMost(Duration.ofSeconds(40)).until(() -> experiment.status() == ExperimentStatus.DONE
                && experiment.trials().size() == 5);
        assertTrue(experiment.trials().stream().allMatch(t -> t.job().status() == TrialStatus.SUCCEEDED));
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L), experiment.trials().stream().map(TrialView::sequenceId).toList());
    }

    public static String gpuXml(String... processesPerGpu) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" ?>\n"
                + "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n<nvidia_smi_log>\n"
                + "<attached_gpus>" + processesPerGpu.length + "</attached_gpus>\n");
        for (int i = 0; i < processesPerGpu.length; i++) {
            xml.append("<gpu id=\"0000000").append(i).append(":00:00.0\"><minor_number>").append(i)
                    .append("</minor_number><utilization><gpu_util>0 %</gpu_util><memory_util>0 %</memory_util></utilization><processes>");
            if (!processesPerGpu[i].isEmpty()) {
                xml.append("<process_info><pid>").append(processesPerGpu[i])
                        .append("</pid><type>C</type><process_name>python</process_name></process_info>");
            }
            xml.append("</processes></gpu>\n");
        }
        return xml.append("</nvidia_smi_log>\n").toString();
    }

    @Test(timeout = 180_000)
    public void gpuPlacementFromAFakeNvidiaSmi() throws Exception {
        String script = """
                echo "$CUDA_VISIBLE_DEVICES" > "$NNI_OUTPUT_DIR/gpus"
                n=0; while [ ! -e "$NNI_CODE_DIR/release-$NNI_TRIAL_SEQ_ID" ] && [ $n -lt 6000 ]; do n=$((n+1)); sleep 0.05; done
                """;
        Experiments setup = setup("trial.sh", script);
        setup.trialCommand = "bash trial.sh";
        setup.concurrency = 2;
        setup.maxTrials = 2;
        setup.gpus = 1;
        setup.section.put("useActiveGpu", false);
        Path fake = folder.newFolder("bin").toPath().resolve("nvidia-smi");
        Path xml = fake.resolveSibling("gpus.xml");
        Files.writeString(xml, gpuXml("", "4711"));
        Files.writeString(fake, "#!/bin/bash\n[ \"$1 $2\" = \"-q -x\" ] || exit 9\ncat " + xml + "\n");
        assertTrue(fake.toFile().setExecutable(true));
        setup.platformSettings.put("nvidia_smi", fake.toString());
        experiment = setup.start("gpuexp01", new ListTuner(10), null);

        await().atMost(Duration.ofSeconds(20)).until(() -> experiment.trials().size() == 2
                && experiment.trials().get(1).job().message().startsWith("waiting"));
        // the first holds GPU 0 until released: RUNNING once its start is answered (later on a loaded machine)
        await().atMost(Duration.ofSeconds(60)).until(() -> experiment.trials().get(0).job().status() == TrialStatus.RUNNING);
        TrialView first = experiment.trials().get(0);
        TrialView second = experiment.trials().get(1);
        assertEquals(TrialStatus.WAITING, second.job().status());
        assertEquals("waiting: needs 1 GPU, 0 free; GPU 0 full (1 trial of this experiment); GPU 1 busy (pid 4711)",
                second.job().message());
        Path trials = setup.workingDirectory.resolve("gpuexp01").resolve("trials");
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(trials.resolve(first.job().id()).resolve("gpus")));
        assertEquals("0", Files.readString(trials.resolve(first.job().id()).resolve("gpus")).strip());

        Files.writeString(setup.codeDirectory.resolve("release-0"), "");
        await().atMost(Duration.ofSeconds(20)).until(() -> experiment.trials().get(1).job().status() == TrialStatus.RUNNING);
        await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(trials.resolve(second.job().id()).resolve("gpus")));
        assertEquals("0", Files.readString(trials.resolve(second.job().id()).resolve("gpus")).strip());
        Files.writeString(setup.codeDirectory.resolve("release-1"), "");
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(20, TimeUnit.SECONDS));
        assertTrue(experiment.trials().stream().allMatch(t -> t.job().status() == TrialStatus.SUCCEEDED));
    }

    @Test(timeout = 60_000)
    public void maxExperimentDurationEndsSubmissionsAndRunningTrialsFinish() throws Exception {
        Experiments setup = setup("trial.sh", "sleep 0.4\n");
        setup.trialCommand = "bash trial.sh";
        setup.maxExperimentDuration = Duration.ofMillis(1000);
        experiment = setup.start("duration2", new ListTuner(1000), null);

        assertEquals(ExperimentStatus.DONE, experiment.settled().get(30, TimeUnit.SECONDS));
        List<TrialView> trials = experiment.trials();
        assertTrue(trials.size() >= 1 && trials.size() <= 4);
        // NNI lets the trial running at the limit finish instead of killing it
        assertTrue(trials.stream().allMatch(t -> t.job().status() == TrialStatus.SUCCEEDED));
        long start = experiment.startTime();
        assertTrue(trials.stream().allMatch(t -> t.job().submitTime().toEpochMilli() - start < 1500));
    }
}
