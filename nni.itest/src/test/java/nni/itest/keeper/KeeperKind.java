package nni.itest.keeper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperRuntime;

/**
 * The two keepers the conformance suite runs: the jar (Java 17) and the Python file (Python 3.7+),
 * both as nni.manager hands them out ({@code KeeperSessions.keeperFile}). The Python keeper runs
 * under the oldest Python 3.7+ on this machine ({@code -Dnni.test.python=...} picks another), so the
 * suite proves the oldest supported one.
 */
public enum KeeperKind {
    JAVA(KeeperRuntime.JAVA, KeeperChoice.JAVA),
    PYTHON(KeeperRuntime.PYTHON, KeeperChoice.PYTHON);

    private static String python;
    private final KeeperRuntime runtime;
    private final KeeperChoice choice;

    KeeperKind(KeeperRuntime runtime, KeeperChoice choice) {
        this.runtime = runtime;
        this.choice = choice;
    }

    /** @return the keeper, as {@code KeeperSessions.keeperFile} and {@code EnvironmentSpec.keeperFile} name it */
    public KeeperRuntime runtime() {
        return runtime;
    }

    /** @return the platform setting that asks for this keeper only ({@code keeper = java | python}) */
    public KeeperChoice choice() {
        return choice;
    }

    /** @return the command that runs the keeper file, before the keeper's own arguments */
    public List<String> command(Path keeperFile) {
        List<String> command = new ArrayList<>();
        if (this == JAVA) {
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.add("-jar");
        } else {
            command.add(python());
        }
        command.add(keeperFile.toString());
        return command;
    }

    /** @return the Python the Python keeper runs under: the oldest 3.7+ found, else {@code python3} */
    public static synchronized String python() {
        if (python == null) {
            String chosen = System.getProperty("nni.test.python");
            if (chosen == null || chosen.isBlank()) {
                List<Path> candidates = new ArrayList<>();
                pyenvRoot().ifPresent(root -> candidates.addAll(children(root.resolve("versions"), "bin/python3")));
                candidates.addAll(children(Path.of("/usr/bin"), null));
                chosen = "python3";
                int[] oldest = version(chosen);
                for (Path candidate : candidates) {
                    int[] v = version(candidate.toString());
                    if (v != null && (v[0] > 3 || (v[0] == 3 && v[1] >= 7)) && (oldest == null || compare(v, oldest) < 0)) {
                        oldest = v;
                        chosen = candidate.toString();
                    }
                }
            }
            python = chosen;
            System.out.println("conformance: the Python keeper runs under " + python + " (" + String.join(".",
                    java.util.Arrays.stream(version(python) == null ? new int[0] : version(python)).mapToObj(String::valueOf).toList()) + ")");
        }
        return python;
    }

    private static java.util.Optional<Path> pyenvRoot() {
        String root = System.getenv("PYENV_ROOT");
        if (root == null) {
            try {
                Process process = new ProcessBuilder("pyenv", "root").redirectErrorStream(true).start();
                String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
                if (process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0) {
                    root = out;
                }
            } catch (IOException e) {
                return java.util.Optional.empty();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return java.util.Optional.empty();
            }
        }
        return root == null || root.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(Path.of(root));
    }

    /** @return {@code dir/<child>/<suffix>} for every child (or {@code dir/python3.N} when suffix is null) that is executable */
    private static List<Path> children(Path directory, String suffix) {
        List<Path> found = new ArrayList<>();
        if (!Files.isDirectory(directory)) {
            return found;
        }
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(directory, suffix == null ? "python3.*" : "*")) {
            for (Path entry : entries) {
                Path candidate = suffix == null ? entry : entry.resolve(suffix);
                if (Files.isExecutable(candidate) && (suffix != null || candidate.getFileName().toString().matches("python3\\.\\d+"))) {
                    found.add(candidate);
                }
            }
        } catch (IOException e) {
            // an unreadable directory offers no Python
        }
        return found;
    }

    private static int[] version(String interpreter) {
        try {
            Process process = new ProcessBuilder(interpreter, "--version").redirectErrorStream(true).start();
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
                return null;
            }
            Matcher m = Pattern.compile("Python (\\d+)\\.(\\d+)\\.(\\d+)").matcher(out);
            return m.find() ? new int[] {Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3))} : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static int compare(int[] a, int[] b) {
        for (int i = 0; i < 3; i++) {
            if (a[i] != b[i]) {
                return Integer.compare(a[i], b[i]);
            }
        }
        return 0;
    }
}
