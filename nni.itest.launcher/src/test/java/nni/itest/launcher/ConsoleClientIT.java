package nni.itest.launcher;

import static org.awaitility.Awaitility.await;
import static org.hamcrest.CoreMatchers.containsString;
import static org.hamcrest.CoreMatchers.equalTo;
import static org.hamcrest.CoreMatchers.is;
import static org.hamcrest.CoreMatchers.not;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.ErrorCollector;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Issue 29, the console: {@code nni:top} redrawn in place on a terminal and printed only as it
 * changes elsewhere, one "interrupted" for Ctrl-C, an experiment that is not open read by
 * {@code nni:trials ID} and {@code nni:explog ID} (with its trials' state changes), "did you mean"
 * for a mistyped command or option, and the client's file names resolved in the client's folder,
 * not the runtime's. One runtime, started in a folder of its own; {@code client} from another
 * folder, through pipes and through a real pseudo-terminal. Every check is collected, so that one
 * run shows each that fails.
 */
public class ConsoleClientIT {

    private static final Pattern CURSOR_UP = Pattern.compile("\u001b\\[\\d+A");

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Rule
    public ErrorCollector errors = new ErrorCollector();

    private JarProcess runtime;
    private PtySession terminal;
    private Path home;
    private Path outputs;
    private Map<String, String> environment;

    @After
    public void stop() throws InterruptedException {
        if (terminal != null) {
            terminal.close();
        }
        if (runtime != null) {
            runtime.close();
        }
    }

    private static JsonNode rest(String endpoint, String path) throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(endpoint
                + "api/v1/nni/" + path)).timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        return RuntimeProcess.JSON.readTree(response.body());
    }

    private static String config(int trials, String command) {
        return """
                searchSpace:
                  x: {_type: choice, _value: [%s]}
                trialCommand: %s
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: %d
                tuner: {name: GridSearch}
                trainingService: {platform: local}
                """.formatted(String.join(", ", java.util.stream.IntStream.rangeClosed(1, trials).mapToObj(Integer::toString)
                .toList()), command, trials);
    }

    @Test(timeout = 420_000)
    public void whatAClientMeets() throws Exception {
        home = folder.newFolder("home").toPath();
        outputs = folder.newFolder("outputs").toPath();
        environment = Map.of("HOME", folder.getRoot().toString());
        Path experiments = folder.newFolder("experiments").toPath();
        Path runtimeFolder = folder.newFolder("runtime").toPath();
        Path clientFolder = folder.newFolder("client").toPath();
        runtime = JarProcess.start(runtimeFolder, environment, outputs, List.of("-Dnni.experiments.dir=" + experiments),
                "--port", "0", "--home", home.toString());
        Path endpointFile = home.resolve("log").resolve("endpoint");
        await().atMost(Duration.ofSeconds(90)).until(() -> Files.exists(endpointFile) && !Files.readString(endpointFile).isBlank());
        String endpoint = Files.readString(endpointFile).strip();
        endpoint = endpoint.endsWith("/") ? endpoint : endpoint + "/";
        await().atMost(Duration.ofSeconds(90)).until(() -> client(clientFolder, "nni:platforms").code() == 0);

        // two trials of a few seconds, created from the client's folder
        Files.writeString(clientFolder.resolve("short.yml"), config(2, "sleep 3"));
        JarProcess.Result created = client(clientFolder, "nni:create", "short.yml");
        errors.checkThat(created.err(), created.code(), is(0));
        String id = created.out().split(" ")[1];

        // nni:top through a pipe: a block only when something beyond the clocks changed, no escape sequences
        JarProcess.Result top = client(clientFolder, "nni:top");
        errors.checkThat(top.err(), top.code(), is(0));
        errors.checkThat(top.out(), top.out().contains("\u001b["), is(false));
        List<String> blocks = blocks(top.out());
        errors.checkThat(top.out(), blocks.size() >= 2, is(true));
        for (int i = 1; i < blocks.size(); i++) {
            errors.checkThat("block " + i + " repeats the one before:\n" + top.out(), blocks.get(i), not(equalTo(blocks.get(i - 1))));
        }
        JsonNode trials = rest(endpoint, "trial-jobs");

        // an experiment that is not open is read from its store
        JarProcess.Result halted = client(clientFolder, "nni:halt", id);
        errors.checkThat(halted.err(), halted.code(), is(0));
        for (List<String> form : List.of(List.of("nni:trials", id), List.of("nni:trials", "--experiment", id))) {
            JarProcess.Result listed = client(clientFolder, form.toArray(String[]::new));
            errors.checkThat(form + ": " + listed.err(), listed.code(), is(0));
            errors.checkThat(form.toString(), listed.out(), containsString("2 of 2 trials"));
        }
        JarProcess.Result explog = client(clientFolder, "nni:explog", id);
        errors.checkThat(explog.err(), explog.code(), is(0));
        errors.checkThat(explog.out(), explog.out(), containsString("experiment " + id + " created in"));
        for (JsonNode trial : trials) {
            String trialId = trial.get("trialJobId").asText();
            for (String status : List.of("WAITING", "RUNNING", "SUCCEEDED")) {
                errors.checkThat(explog.out(), Pattern.compile("TRIAL +trial " + trialId + " #\\d+ " + status).matcher(explog.out())
                        .find(), is(true));
            }
        }

        // a file the client names is in the client's folder
        JarProcess.Result exported = client(clientFolder, "nni:export", "--type", "csv", id, "results.csv");
        errors.checkThat(exported.err(), exported.code(), is(0));
        errors.checkThat("results.csv in the client's folder", Files.exists(clientFolder.resolve("results.csv")), is(true));
        errors.checkThat("results.csv in the runtime's folder", Files.exists(runtimeFolder.resolve("results.csv")), is(false));

        // did you mean
        JarProcess.Result command = client(clientFolder, "nni:trails", id);
        errors.checkThat(command.code(), is(1));
        errors.checkThat(command.err(), containsString("did you mean nni:trials?"));
        JarProcess.Result option = client(clientFolder, "nni:trials", "--stauts", "SUCCEEDED", id);
        errors.checkThat(option.code(), is(1));
        errors.checkThat(option.err(), containsString("unknown option --stauts; did you mean --status?"));
        JarProcess.Result felix = client(clientFolder, "lb");
        errors.checkThat("Felix's lb stays Felix's: " + felix.err(), felix.out(), containsString("Apache Felix Gogo Runtime"));

        // nni:top on a terminal: redrawn in place, "left" judged by the finished trial (it never grows while
        // the second runs); Ctrl-C says "interrupted" once. The first trial ends at once, the second sleeps.
        Files.writeString(clientFolder.resolve("trial.sh"), "mkdir '" + clientFolder.resolve("first-trial")
                + "' 2>/dev/null && exit 0\nsleep 300\n");
        Files.writeString(clientFolder.resolve("long.yml"), config(2, "bash trial.sh"));
        JarProcess.Result running = client(clientFolder, "nni:create", "long.yml");
        errors.checkThat(running.err(), running.code(), is(0));
        String longId = running.out().split(" ")[1];
        String base = endpoint;
        await().atMost(Duration.ofSeconds(60)).until(() -> rest(base, "trial-jobs").size() == 2
                && rest(base, "trial-jobs").findValuesAsText("status").contains("RUNNING"));
        terminal = PtySession.jar(clientFolder, environment, List.of(), "--home", home.toString(), "client");
        terminal.await("nni> ", Duration.ofSeconds(60));
        terminal.type("nni:top" + PtySession.ENTER);
        int topStarted = terminal.shown().length();
        terminal.await("running 1");
        int firstBlock = terminal.shown().length();
        terminal.await("running 1"); // the next refreshes
        terminal.await("running 1");
        Matcher redrawn = CURSOR_UP.matcher(terminal.shown().substring(firstBlock));
        errors.checkThat("the cursor goes back up over the last block:\n" + terminal.shown().substring(firstBlock),
                redrawn.find(), is(true));
        List<Long> left = new ArrayList<>();
        Matcher estimate = Pattern.compile("left (\\d+):(\\d+)").matcher(terminal.shown().substring(topStarted));
        while (estimate.find()) {
            left.add(Long.parseLong(estimate.group(1)) * 60 + Long.parseLong(estimate.group(2)));
        }
        errors.checkThat("estimates of time left: " + left, left.size() >= 3, is(true));
        for (int i = 1; i < left.size(); i++) {
            errors.checkThat("time left grew while a trial ran: " + left, left.get(i) <= left.get(i - 1), is(true));
        }
        int beforeCtrlC = terminal.shown().length();
        terminal.type(PtySession.CTRL_C);
        terminal.await("nni> ");
        String afterCtrlC = terminal.shown().substring(beforeCtrlC);
        errors.checkThat(afterCtrlC, afterCtrlC.split("interrupted", -1).length - 1, is(1));
        terminal.type("exit" + PtySession.ENTER);
        terminal.awaitExit(Duration.ofSeconds(30));
        client(clientFolder, "nni:halt", longId);
    }

    /** @return {@code java -jar nni-osgi.jar client LINE...} run in {@code directory} */
    private JarProcess.Result client(Path directory, String... line) throws Exception {
        List<String> args = new ArrayList<>(List.of("--home", home.toString(), "client"));
        args.addAll(List.of(line));
        return JarProcess.run(directory, environment, outputs, args.toArray(String[]::new));
    }

    /** @return nni:top's blocks as printed, each without its time line and its clocks */
    private static List<String> blocks(String out) {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (String line : out.split("\n")) {
            if (line.startsWith("--- ")) {
                if (block != null) {
                    blocks.add(block.toString());
                }
                block = new StringBuilder();
            } else if (block != null) {
                block.append(line.replaceFirst("\\s*elapsed .*$", "")).append('\n');
            }
        }
        if (block != null) {
            blocks.add(block.toString());
        }
        return blocks;
    }
}
