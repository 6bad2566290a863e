package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;

import java.time.Duration;
import java.util.List;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;

/**
 * Issue 10: Gogo runs the first command of a name whatever its scope, so {@code nni:stop},
 * {@code nni:update} and {@code nni:log} made {@code stop 0} stop an experiment instead of the
 * framework. Every command the README documents is resolved here through a real Gogo session,
 * unqualified and qualified, and Felix's {@code stop}, {@code update} and {@code log} still reach
 * Felix.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ShellCommandsIT extends RuntimeTestSupport {

    /** The README's Gogo table. */
    private static final List<String> DOCUMENTED = List.of("platforms", "version", "validate", "create", "resume", "view",
            "halt", "change", "experiments", "top", "trials", "trial", "cancel", "output", "export", "import", "importdata",
            "delete");

    @Configuration
    public Option[] config() {
        // the runtime's shell, for its built-in "type" that tells how a name resolves; no console here
        return new Option[] {baseOptions(), frameworkProperty("gosh.args").value("--nointeractive --noshutdown"),
                mavenBundle("org.apache.felix", "org.apache.felix.gogo.shell").versionAsInProject()};
    }

    /** @return Gogo's own answer to {@code type -a name}: every command of that name, the one it runs first */
    private List<String> resolutions(String name) throws Exception {
        return printed("type -a " + name).lines().filter(line -> line.startsWith(name + " is ")).toList();
    }

    @Test(timeout = 60_000)
    public void everyDocumentedCommandIsOursAndNoOtherCommandHasItsName() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> !resolutions("create").isEmpty()); // the commands are registered
        for (String name : DOCUMENTED) {
            List<String> found = resolutions(name);
            assertFalse(name + " is not found", found.isEmpty());
            assertTrue(name + " resolves to ours only (overloads included): " + found,
                    found.stream().allMatch(line -> line.contains(" nni:" + name + "(")));
            String qualified = printed("type nni:" + name);
            assertTrue(name + ": " + qualified, qualified.contains(" nni:" + name + "("));
        }
        // run unqualified, the experiment commands answer themselves
        String halted = failure("halt nosuchexperiment");
        assertTrue(halted, halted.contains("no open experiment nosuchexperiment"));
        String output = failure("output nosuchtrial");
        assertTrue(output, output.contains("no open experiment has a trial nosuchtrial"));
    }

    @Test(timeout = 60_000)
    public void felixKeepsStopUpdateAndLog() throws Exception {
        await().atMost(Duration.ofSeconds(30)).until(() -> !resolutions("create").isEmpty()); // the commands are registered
        for (String name : List.of("stop", "update", "log")) {
            List<String> found = resolutions(name);
            assertFalse(name + " is not found", found.isEmpty());
            assertTrue(name + " resolves to Felix's only: " + found, found.stream().allMatch(line -> line.contains(" felix:" + name + "(")));
        }
        // "stop 0" is the framework's again: a bundle id that does not exist shows who answers (Felix wants Bundles)
        String stop = failure("stop 424242");
        assertTrue(stop, stop.contains("Bundle") && !stop.contains("experiment"));
        String update = failure("update 424242");
        assertTrue(update, update.contains("Bundle") && !update.contains("experiment"));
        String log = failure("log 1");
        assertTrue(log, log.contains("Log reader") && !log.contains("trial"));
    }

    /** @return what running the line printed or threw */
    private String failure(String line) {
        try {
            return String.valueOf(command(line));
        } catch (Exception e) {
            return String.valueOf(e.getMessage());
        }
    }
}
