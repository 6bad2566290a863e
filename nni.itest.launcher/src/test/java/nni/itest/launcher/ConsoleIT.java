package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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
 * Issue 17: the console users live in. The runtime's own terminal and {@code client} from a second
 * terminal, both driven through real pseudo-terminals: Tab completion of commands, trial ids and
 * file names, {@code help} with descriptions, {@code --help}, errors as messages, Ctrl-C leaving
 * {@code nni:top} for the prompt without stopping anything; one-shot client commands with their
 * exit codes and token; {@code run} failing visibly when no trial succeeds; the usage text.
 */
public class ConsoleIT {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private RuntimeProcess runtime;
    private PtySession terminal;

    @After
    public void stop() throws InterruptedException {
        if (terminal != null) {
            terminal.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    /** A folder with a config whose one trial sleeps until cancelled. */
    private Path sleepingExperiment() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), "sleep 300\n");
        Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: choice, _value: [1]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                tuner: {name: Random}
                trainingService: {platform: local}
                """);
        return code;
    }

    private static JsonNode rest(String endpoint, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(endpoint
                + "api/v1/nni/" + path)).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(response.body(), 200, response.statusCode());
        return RuntimeProcess.JSON.readTree(response.body());
    }

    private static String endpoint(Path home) throws Exception {
        Path file = home.resolve("log").resolve("endpoint");
        await().atMost(Duration.ofSeconds(60)).until(() -> Files.exists(file));
        String endpoint = Files.readString(file).strip();
        return endpoint.endsWith("/") ? endpoint : endpoint + "/";
    }

    /** @return the id of the experiment's only trial, once it runs */
    private static String runningTrial(String endpoint) throws Exception {
        await().atMost(Duration.ofSeconds(60)).until(() -> rest(endpoint, "trial-jobs").size() == 1
                && rest(endpoint, "trial-jobs").get(0).get("status").asText().equals("RUNNING"));
        return rest(endpoint, "trial-jobs").get(0).get("trialJobId").asText();
    }

    @Test(timeout = 240_000)
    public void theRuntimesOwnTerminalIsAConsole() throws Exception {
        Path code = sleepingExperiment();
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        terminal = PtySession.jar(code, Map.of("HOME", folder.getRoot().toString()), List.of("-Dnni.experiments.dir=" + experiments),
                "--port", "0", "--home", home.toString());
        terminal.await("nni> ", Duration.ofSeconds(90));
        int promptUp = terminal.shown().length();

        terminal.type("nni:plat" + PtySession.TAB);
        terminal.await("nni:platforms");
        terminal.type(PtySession.ENTER);
        terminal.await("RUNS TRIALS");
        terminal.await("local");
        terminal.await("nni> ");

        terminal.type("nni:create --help" + PtySession.ENTER);
        terminal.await("creates and starts an experiment from an NNI config file");
        terminal.await("nni> ");
        terminal.type("nni:trials -h" + PtySession.ENTER);
        terminal.await("--head");
        terminal.await("nni> ");
        terminal.type("help" + PtySession.ENTER);
        terminal.await("nni:trials ");
        terminal.await("lists the trials of the running experiment");
        terminal.await("nni> ");

        // errors are messages
        terminal.type("nni:trial nosuch" + PtySession.ENTER);
        terminal.await("no open experiment has a trial nosuch");
        terminal.type("nni:trial" + PtySession.ENTER);
        terminal.await("nni:trial: these arguments do not fit the command; nni:trial --help shows its usage");
        terminal.type("nosuchcommand" + PtySession.ENTER);
        terminal.await("unknown command: nosuchcommand (help lists the commands)");
        terminal.type("telnetd start" + PtySession.ENTER);
        terminal.await("the telnet console is not offered");
        terminal.await("nni> ");

        // a file name of this folder, then the experiment's trial id, by Tab
        terminal.type("nni:validate conf" + PtySession.TAB);
        terminal.await("config.yml");
        terminal.type(PtySession.ENTER);
        terminal.await("OK");
        terminal.type("nni:create config.yml" + PtySession.ENTER);
        terminal.await("experiment ");
        terminal.await(" in " + experiments);
        String endpoint = endpoint(home);
        String trial = runningTrial(endpoint);
        terminal.type("nni:trial " + PtySession.TAB);
        terminal.await("nni:trial " + trial);
        terminal.type(PtySession.ENTER);
        terminal.await("RUNNING");

        // Ctrl-C leaves nni:top for the prompt; the runtime and the experiment go on
        terminal.type("nni:top" + PtySession.ENTER);
        terminal.await("running 1");
        terminal.type(PtySession.CTRL_C);
        terminal.await("interrupted");
        terminal.await("nni> ");
        assertTrue(terminal.alive());
        assertEquals("RUNNING", rest(endpoint, "trial-jobs/" + trial).get("status").asText());

        // only warnings and errors of the log while the prompt is up; the log file has everything
        String sincePrompt = terminal.shown().substring(promptUp);
        assertFalse(sincePrompt, sincePrompt.contains(" INFO "));
        assertFalse(sincePrompt, sincePrompt.contains("Exception"));
        assertTrue(Files.readString(home.resolve("log").resolve("nni.log")).contains("created in"));

        terminal.type("nni:halt " + rest(endpoint, "experiment").get("id").asText() + PtySession.ENTER);
        terminal.await(" stopped");
        // Ctrl-D only once the prompt is up: between two prompts the terminal is in cooked mode, where the
        // line discipline takes Ctrl-D as end-of-file itself and the console never sees it
        terminal.await("nni> ");
        terminal.type(PtySession.CTRL_D);
        assertEquals(0, terminal.awaitExit(Duration.ofSeconds(120))); // the runtime stops: slow under load
    }

    @Test(timeout = 240_000)
    public void aClientFromAnotherTerminal() throws Exception {
        Path code = sleepingExperiment();
        Path home = folder.newFolder("home").toPath();
        Path experiments = folder.newFolder("experiments").toPath();
        runtime = RuntimeProcess.start(home, experiments);
        String endpoint = endpoint(home);
        Map<String, String> environment = Map.of("HOME", folder.getRoot().toString());
        Path outputs = folder.newFolder("outputs").toPath();

        await().atMost(Duration.ofSeconds(60)).until(() -> JarProcess.run(code, environment, outputs, "--home", home.toString(),
                "client", "nni:platforms").code() == 0);
        JarProcess.Result platforms = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client", "nni:platforms");
        assertTrue(platforms.out(), platforms.out().startsWith("PLATFORM") && platforms.out().contains("local"));
        JarProcess.Result missing = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client", "nni:trial", "nosuch");
        assertEquals(1, missing.code());
        assertEquals("no open experiment has a trial nosuch\n", missing.err());
        // Felix's log reader is there: log shows the OSGi log (the framework's events at least)
        JarProcess.Result log = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client", "log", "5", "info");
        assertEquals(log.err(), 0, log.code());
        assertTrue(log.out(), log.out().contains("BundleEvent") || log.out().contains("ServiceEvent"));
        // a file name is the client's: made absolute before the runtime sees it
        JarProcess.Result created = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client",
                "nni:create", "config.yml");
        assertEquals(created.err(), 0, created.code());
        String id = created.out().split(" ")[1];
        String trial = runningTrial(endpoint);
        // the experiment's own log, as NNI keeps it, and nni:explog shows its end
        Path managerLog = experiments.resolve(id).resolve("log").resolve("nnimanager.log");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.readString(managerLog).contains("experiment " + id + " created in"));
        JarProcess.Result explog = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client", "nni:explog",
                "--tail", "1", id);
        assertEquals(explog.err(), 0, explog.code());
        assertEquals(explog.out(), 1, explog.out().strip().lines().count());
        assertFalse(Files.readString(managerLog), Files.readString(managerLog).contains("platform 'local' bound"));

        // a wrong token, no token: refused, and the runtime's console asks for its token (the runtime keeps the token it read)
        Path tokenFile = home.resolve("console.token");
        String realToken = Files.readString(tokenFile);
        Files.writeString(tokenFile, "guessed");
        JarProcess.Result wrong = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client", "nni:version");
        Files.writeString(tokenFile, realToken);
        assertEquals(4, wrong.code());
        assertTrue(wrong.err(), wrong.err().contains("refused the console token"));
        HttpResponse<String> anonymous = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(endpoint
                + "api/v1/nni-console/run")).POST(HttpRequest.BodyPublishers.ofString("stop 0")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(401, anonymous.statusCode());
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(home.resolve("console.token"))));

        // an interactive client on a terminal: completion, Ctrl-C in nni:top, and leaving keeps the runtime
        terminal = PtySession.jar(code, environment, List.of(), "--home", home.toString(), "client");
        terminal.await("nni> ", Duration.ofSeconds(60));
        terminal.type("nni:cancel " + PtySession.TAB);
        terminal.await("nni:cancel " + trial);
        terminal.type(PtySession.CTRL_C); // at the prompt: the line is dropped
        terminal.await("nni> ");
        terminal.type("nni:top" + PtySession.ENTER);
        terminal.await("running 1");
        terminal.type(PtySession.CTRL_C);
        terminal.await("interrupted");
        terminal.await("nni> ");
        terminal.type("nni:trials" + PtySession.ENTER);
        terminal.await(trial);
        terminal.type("exit" + PtySession.ENTER);
        assertEquals(0, terminal.awaitExit(Duration.ofSeconds(30)));
        assertEquals("RUNNING", rest(endpoint, "trial-jobs/" + trial).get("status").asText());

        JarProcess.Result halted = JarProcess.run(code, environment, outputs, "--home", home.toString(), "client", "nni:halt", id);
        assertEquals("experiment " + id + " stopped\n", halted.out());
    }

    @Test(timeout = 180_000)
    public void runExitsFiveWhenNoTrialSucceededAndSaysWhy() throws Exception {
        Path code = folder.newFolder("failing").toPath();
        Files.writeString(code.resolve("trial.sh"), """
                echo "Traceback (most recent call last):" >&2
                echo "ValueError: x must be positive" >&2
                exit 3
                """);
        Files.writeString(code.resolve("config.yml"), """
                searchSpace:
                  x: {_type: choice, _value: [-1, -2]}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 2
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """);
        JarProcess.Result run = JarProcess.run(code, Map.of("HOME", folder.getRoot().toString()), folder.newFolder("out").toPath(),
                "--port", "0", "--home", folder.newFolder("home").toPath().toString(), "run", "config.yml");
        assertEquals(run.out() + run.err(), 5, run.code());
        assertTrue(run.err(), run.err().contains("2 trials failed:"));
        assertTrue(run.err(), run.err().contains("exit code 3: Traceback (most recent call last): | ValueError: x must be positive"));
        assertTrue(run.err(), run.err().contains("no trial succeeded (exit code 5)"));
    }

    @Test(timeout = 60_000)
    public void theUsageTextListsEveryCommandAndOption() throws Exception {
        JarProcess.Result help = JarProcess.run(folder.getRoot().toPath(), Map.of("HOME", folder.getRoot().toString()),
                folder.newFolder("out").toPath(), "help");
        assertEquals(0, help.code());
        for (String item : List.of("--port N", "--host ADDRESS", "--home DIR", "-v, --verbose", "--log-level LEVEL", "run CONFIG",
                "resume ID", "validate FILE...", "version", "client [COMMAND ...]", "help", "exit codes:",
                "5 run/resume: the experiment ended with no trial that succeeded", "117 the runtime stopped itself", "130 interrupted")) {
            assertTrue(item + " in:\n" + help.out(), help.out().contains(item));
        }
    }
}
