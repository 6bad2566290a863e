package nni.itest.launcher;

import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Issue 25 item 4, with the real nni package ({@link RealNni}): NNI's GPTuner raises in its worker
 * at its second request (SciPy 1.10 here) while the dispatcher process lives on. The run ends in
 * ERROR with exit code 1 and the traceback's last lines in its output, instead of idling.
 */
public class RealNniFailureIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;

    @After
    public void stop() throws InterruptedException {
        if (runtime != null) {
            runtime.close();
        }
    }

    @Test(timeout = 600_000)
    public void anAlgorithmThatRaisesInNnisDispatcherFailsTheRunWithItsTraceback() throws Exception {
        String python = RealNni.python("RealNniFailureIT").toString();
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.py"), "import nni\nnni.report_final_result(nni.get_next_parameter()['x'])\n");
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: uniform, _value: [0, 10]}
                trialCommand: %s trial.py
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 5
                tuner:
                  name: GPTuner
                  classArgs: {optimize_mode: maximize, cold_start_num: 1}
                trainingService:
                  platform: local
                """.formatted(python));
        runtime = RuntimeProcess.start(Map.of("NNI_OSGI_PYTHON", python, "HOME", folder.newFolder("home").toString()),
                RealNni.patientHome(folder.newFolder("runtime").toPath(), null), folder.newFolder("experiments").toPath(), "run",
                config.toString());
        // before issue 25 the experiment idled with nothing running until maxExperimentDuration: no exit at all
        runtime.assertExit(1, Duration.ofSeconds(500));
        String console = runtime.console();
        assertTrue(console, console.contains(" ERROR ") && console.contains("raised an error"));
        assertTrue(console, console.contains("TypeError: 'float' object is not subscriptable"));
    }

    /**
     * The tuner raises on the only trial's result, which arrives when nothing more is to be drawn:
     * NNI's dispatcher notices its worker's error only at the next command, after the experiment
     * ended by itself. The run used to end DONE (exit 0) with the tuner's traceback only in its log.
     */
    @Test(timeout = 600_000)
    public void aTunerThatRaisesOnTheLastResultFailsTheRunInsteadOfEndingDone() throws Exception {
        runCustomTuner("FailsOnResults", 1, "import nni\nnni.get_next_parameter()\nnni.report_final_result(7)\n");
        runtime.assertExit(1, Duration.ofSeconds(500));
        String console = runtime.console();
        assertTrue(console, console.contains(" ERROR") && console.contains("raised an error"));
        assertTrue(console, console.contains("ValueError: the tuner cannot take result 7"));
    }

    @Test(timeout = 600_000)
    public void anAlgorithmStuckInNnisDispatcherFailsTheRunAlthoughTheDispatcherAnswersPings() throws Exception {
        runCustomTuner("Hangs", 2, "import nni\nnni.report_final_result(1)\n");
        // NNI's worker sleeps in generate_parameters while its channel thread answers pings: only the owed answer tells
        runtime.assertExit(1, Duration.ofSeconds(500));
        String console = runtime.console();
        assertTrue(console, console.contains("did not answer a request for trials within 20 s") && console.contains("the tuner hangs"));
    }

    /** Starts {@code run} of one trial at a time with a tuner class of the tests' {@code algorithms.py}. */
    private void runCustomTuner(String tunerClass, int maxTrials, String trial) throws Exception {
        String python = RealNni.python("RealNniFailureIT").toString();
        Path code = folder.newFolder("code").toPath();
        try (java.io.InputStream in = RealNniFailureIT.class.getResourceAsStream("/dispatcher/algorithms.py")) {
            Files.copy(in, code.resolve("algorithms.py"));
        }
        Files.writeString(code.resolve("trial.py"), trial);
        Path config = Files.writeString(code.resolve("config.yml"), """
                searchSpace: {}
                trialCommand: %s trial.py
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: %d
                tuner:
                  className: algorithms.%s
                  codeDirectory: .
                trainingService:
                  platform: local
                """.formatted(python, maxTrials, tunerClass));
        runtime = RuntimeProcess.start(Map.of("NNI_OSGI_PYTHON", python, "HOME", folder.newFolder("home").toString()),
                RealNni.patientHome(folder.newFolder("runtime").toPath(), null), folder.newFolder("experiments").toPath(), "run",
                config.toString());
    }
}
