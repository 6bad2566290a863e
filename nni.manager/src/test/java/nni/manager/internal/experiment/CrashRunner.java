package nni.manager.internal.experiment;

import java.nio.file.Path;

/**
 * The runtime side of the crash test, in its own JVM: starts an experiment and runs until it is
 * killed with SIGKILL by {@link ResumeAfterKillTest}.
 */
public final class CrashRunner {

    private CrashRunner() {
    }

    public static void main(String[] args) throws Exception {
        Experiments setup = new Experiments(Path.of(args[0]), Path.of(args[1]));
        setup.concurrency = 2;
        setup.maxTrials = Integer.parseInt(args[3]);
        Experiment experiment = setup.start(args[2], new ListTuner(1000), null);
        System.out.println("started " + experiment.id());
        // bounded: the test kills this JVM long before
        experiment.settled().get(5, java.util.concurrent.TimeUnit.MINUTES);
    }
}
