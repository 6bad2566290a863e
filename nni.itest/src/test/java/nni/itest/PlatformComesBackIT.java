package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;

/**
 * A platform can be updated while experiments run: when its bundle stops, the experiment's running
 * trials end SYS_CANCELED and the experiment waits (it does not fail); when the bundle starts again,
 * the experiment continues on it with new trials.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PlatformComesBackIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private Bundle echo;

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("comes-back-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    @After
    public void removeEcho() throws Exception {
        if (echo != null && echo.getState() != Bundle.UNINSTALLED) {
            echo.uninstall();
        }
    }

    @SuppressWarnings("unchecked")
    private List<String> trials(String status) throws Exception {
        return (List<String>) command(status.isEmpty() ? "nni:trials" : "nni:trials --status " + status);
    }

    @Test(timeout = 180_000)
    public void anExperimentWaitsForItsPlatformAndContinuesWhenItIsBack() throws Exception {
        echo = context.installBundle(reactorBundle("nni.itest.platform"));
        echo.start();
        Path code = Files.createDirectories(Path.of(context.getProperty("nni.it.root")).resolve("code"));
        Path config = code.resolve("config.yml");
        // every parameter set contains "hold": the echo platform keeps such trials RUNNING
        Files.writeString(config, """
                searchSpace:
                  mode: {_type: choice, _value: [hold]}
                  x: {_type: uniform, _value: [0, 1]}
                trialCommand: "true"
                trialCodeDirectory: .
                trialConcurrency: 2
                maxTrialNumber: 4
                tuner:
                  name: Random
                trainingService:
                  platform: echo
                """);
        await().atMost(WAIT).until(() -> String.valueOf(command("nni:platforms")).contains("echo"));
        String created = (String) command("nni:create " + config);
        assertTrue(created, created.matches("experiment \\w{8} RUNNING in .*"));
        String id = created.split(" ")[1];
        await().atMost(WAIT).until(() -> trials("RUNNING").size() == 2);

        echo.stop();
        await().atMost(WAIT).until(() -> trials("SYS_CANCELED").size() == 2);
        List<String> cancelled = trials("SYS_CANCELED");
        assertTrue(cancelled.toString(), cancelled.get(0).contains("platform 'echo' went away"));
        assertEquals("nothing is submitted while the platform is away", 2, trials("").size());
        String top = command("nni:top --once").toString();
        assertTrue(top, top.contains(id) && !top.contains("ERROR"));

        echo.start();
        await().atMost(WAIT).until(() -> trials("RUNNING").size() == 2);
        assertEquals(4, trials("").size());
        assertEquals(2, trials("SYS_CANCELED").size());
        assertTrue("no trial failed", trials("FAILED").isEmpty());

        assertEquals("experiment " + id + " stopped", command("nni:stop " + id));
    }
}
