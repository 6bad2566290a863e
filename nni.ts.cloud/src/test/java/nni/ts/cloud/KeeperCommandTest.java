package nni.ts.cloud;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;

/**
 * The command line a cluster job runs, run by a real shell with stand-ins for {@code java} and
 * {@code python3} that write the words they were given: the keeper gets exactly the arguments the
 * manager asked for, however the trial command is quoted, and {@code auto} picks by the Java version.
 */
public class KeeperCommandTest {

    private static final String TRIAL = "python3 -c \"print('a $HOME `b` \\\\ c')\" && echo 'it''s' done";

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private EnvironmentSpec spec(KeeperRuntime... runtimes) throws Exception {
        EnvironmentSpec.Builder builder = EnvironmentSpec.builder("env01").mode("runner").platform("pai").experimentId("exp12345")
                .managerUrl("http://127.0.0.1:8080/").token("t0ken").codeArchive(folder.newFile().toPath()).trialCommand(TRIAL);
        for (KeeperRuntime runtime : runtimes) {
            builder.keeperFile(runtime, folder.getRoot().toPath().resolve(runtime.fileName()));
        }
        return builder.build();
    }

    /** A stand-in interpreter: answers -version like a JDK of {@code version}, else writes its words to {@code out}. */
    private Path standIn(String name, String version, Path out) throws Exception {
        Path script = folder.getRoot().toPath().resolve(name);
        Files.writeString(script, "#!/bin/bash\nif [ \"$1\" = -version ]; then echo 'openjdk version \"" + version + "\" 2025-01-01' >&2; exit 0; fi\n"
                + "if [ \"$1\" = -c ]; then exit 1; fi\nprintf '%s\\n' \"$@\" > " + out + "\necho \"$PYTHONPATH\" > " + out + ".env\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
        return script;
    }

    private void run(String line) throws Exception {
        Process shell = new ProcessBuilder("sh", "-c", line).directory(folder.getRoot()).start();
        assertTrue(shell.waitFor(20, TimeUnit.SECONDS));
        assertEquals(new String(shell.getErrorStream().readAllBytes()), 0, shell.exitValue());
    }

    @Test
    public void theKeeperGetsItsArgumentsWordForWordWhateverTheTrialCommandHolds() throws Exception {
        Path out = folder.getRoot().toPath().resolve("java.out");
        Path java = standIn("java", "17.0.15", out);
        EnvironmentSpec spec = spec(KeeperRuntime.JAVA);
        Map<KeeperRuntime, String> keepers = new EnumMap<>(KeeperRuntime.class);
        keepers.put(KeeperRuntime.JAVA, "/storage/exp/keeper/nni-trialkeeper.jar");
        Path work = folder.getRoot().toPath().resolve("work dir");
        String line = new KeeperCommand(spec, keepers, java.toString(), "python3").line("/storage/exp/code.tgz", work.toString(),
                null, null, List.of("--token-file", "/t/f"));
        assertFalse(line.contains("t0ken"));
        run(line);
        List<String> expected = new ArrayList<>(List.of("-jar", "/storage/exp/keeper/nni-trialkeeper.jar"));
        expected.addAll(spec.arguments("/storage/exp/code.tgz", work.toString()));
        expected.addAll(List.of("--token-file", "/t/f"));
        assertEquals(expected, Files.readAllLines(out));
        assertTrue(Files.isRegularFile(work.resolve("keeper.stdout")));
        assertTrue(expected.contains(TRIAL));
    }

    @Test
    public void autoRunsJava17OrLaterAndElsePythonWithTheShippedSdkOnItsPath() throws Exception {
        Map<KeeperRuntime, String> keepers = new EnumMap<>(KeeperRuntime.class);
        keepers.put(KeeperRuntime.JAVA, "/k/nni-trialkeeper.jar");
        keepers.put(KeeperRuntime.PYTHON, "/k/nni-trialkeeper.py");
        EnvironmentSpec spec = spec(KeeperRuntime.JAVA, KeeperRuntime.PYTHON);
        Path work = folder.getRoot().toPath().resolve("w");

        Path javaOut = folder.getRoot().toPath().resolve("java21.out");
        Path pythonOut = folder.getRoot().toPath().resolve("python-after-21.out");
        run(new KeeperCommand(spec, keepers, standIn("java21", "21.0.2", javaOut).toString(),
                standIn("py1", "", pythonOut).toString()).line("/c.tgz", work.toString(), "/sdk", "custom command", List.of()));
        assertTrue(Files.exists(javaOut));
        assertFalse(Files.exists(pythonOut));
        assertTrue(Files.readAllLines(javaOut).contains("custom command"));

        Path oldJava = folder.getRoot().toPath().resolve("java11.out");
        Path python = folder.getRoot().toPath().resolve("python.out");
        String line = new KeeperCommand(spec, keepers, standIn("java11", "11.0.2", oldJava).toString(),
                standIn("py2", "", python).toString()).line("/c.tgz", work.toString(), "/sdk dir", null, List.of());
        run(line);
        assertFalse(Files.exists(oldJava));
        assertEquals("/k/nni-trialkeeper.py", Files.readAllLines(python).get(0));
        // the stand-in Python cannot import nni: the shipped SDK is put first on its path
        assertTrue(Files.readString(Path.of(python + ".env")).startsWith("/sdk dir"));
    }
}
