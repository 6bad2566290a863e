package nni.shell.internal.nnictl;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs python3, and {@code nnictl/nni_tools.py} (what NNI's own tools do), for tests. */
public final class Python {

    private Python() {
    }

    public static boolean available() {
        try {
            Process probe = new ProcessBuilder("python3", "--version").redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return probe.waitFor(30, TimeUnit.SECONDS) && probe.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @return the path of {@code nni_tools.py} */
    public static Path tools() {
        try {
            return Path.of(Python.class.getResource("/nnictl/nni_tools.py").toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Runs {@code nni_tools.py ARGS} and returns what it printed; fails the test when it fails. */
    public static String tools(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(tools().toString()));
        command.addAll(List.of(args));
        return run(command.toArray(String[]::new));
    }

    /** Runs {@code python3 ARGS} (two minutes at most) and returns its standard output. */
    public static String run(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("python3"));
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        byte[] output = process.getInputStream().readAllBytes();
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("python3 " + args[0] + " did not end");
        }
        String text = new String(output, StandardCharsets.UTF_8);
        if (process.exitValue() != 0) {
            throw new AssertionError("python3 " + String.join(" ", args) + " failed (" + process.exitValue() + "): " + text);
        }
        return text;
    }
}
