package nni.ts.remote.internal.keeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

import nni.ts.remote.internal.keeper.KeeperProbe.Choice;
import nni.ts.remote.internal.keeper.KeeperProbe.NoKeeperException;
import nni.ts.remote.internal.keeper.KeeperProbe.Runtime;

public class KeeperProbeTest {

    private static final String SEP = "\n" + KeeperProbe.SEPARATOR + "\n";
    private static final String JAVA_17 = "openjdk version \"17.0.2\" 2022-01-18\nOpenJDK Runtime Environment (build 17.0.2+8-86)";
    private static final String JAVA_8 = "java version \"1.8.0_292\"\nJava(TM) SE Runtime Environment";
    private static final String NO_JAVA = "bash: line 1: java: command not found";
    private static final String PYTHON_311 = "Python 3.11.2";
    private static final String PYTHON_36 = "Python 3.6.15";
    private static final String NO_PYTHON = "bash: line 1: python3: command not found";

    private static Runtime choose(Choice choice, String java, String python) throws NoKeeperException {
        return KeeperProbe.choose("gpu-1:22", choice, java + SEP + python + "\n", "java", "python3");
    }

    @Test
    public void autoPrefersJava17AndTakesPython37WhenJavaIsMissingOrOld() throws Exception {
        assertEquals(Runtime.JAVA, choose(Choice.AUTO, JAVA_17, PYTHON_311));
        assertEquals(Runtime.JAVA, choose(Choice.AUTO, "Picked up JAVA_TOOL_OPTIONS: -Xmx1g\n" + JAVA_17, NO_PYTHON));
        assertEquals(Runtime.PYTHON, choose(Choice.AUTO, NO_JAVA, PYTHON_311));
        assertEquals(Runtime.PYTHON, choose(Choice.AUTO, JAVA_8, "Python 3.7.16"));
        assertEquals(Runtime.PYTHON, choose(Choice.PYTHON, JAVA_17, PYTHON_311));
    }

    @Test
    public void aMachineWithNeitherIsNamedWithBothRequirements() {
        NoKeeperException e = assertThrows(NoKeeperException.class, () -> choose(Choice.AUTO, JAVA_8, PYTHON_36));
        assertEquals("machine gpu-1:22 can run no trial keeper: it needs Java 17 or newer (`java -version`: java version \"1.8.0_292\")"
                + " or Python 3.7 or newer (`python3 --version`: Python 3.6.15)", e.getMessage());
        e = assertThrows(NoKeeperException.class, () -> choose(Choice.AUTO, NO_JAVA, NO_PYTHON));
        assertTrue(e.getMessage(), e.getMessage().contains("(`java -version`: not found)") && e.getMessage().contains("(`python3 --version`: not found)"));
    }

    @Test
    public void aForcedChoiceNeedsThatRuntime() throws Exception {
        assertEquals(Runtime.JAVA, choose(Choice.JAVA, JAVA_17, NO_PYTHON));
        NoKeeperException e = assertThrows(NoKeeperException.class, () -> choose(Choice.JAVA, NO_JAVA, PYTHON_311));
        assertTrue(e.getMessage(), e.getMessage().startsWith("machine gpu-1:22 cannot run the Java trial keeper (keeper = java)"));
        e = assertThrows(NoKeeperException.class, () -> choose(Choice.PYTHON, JAVA_17, PYTHON_36));
        assertTrue(e.getMessage(), e.getMessage().contains("keeper = python") && e.getMessage().contains("Python 3.6.15"));
        assertEquals(Choice.PYTHON, Choice.parse(" Python "));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Choice.parse("jvm"));
        assertTrue(bad.getMessage(), bad.getMessage().contains("auto, java or python"));
    }

    @Test
    public void theProbeCommandAnswersOnThisMachine() throws Exception {
        Process shell = new ProcessBuilder("/bin/bash", "-c", KeeperProbe.command("java", "no-such-python3")).start();
        String output = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(shell.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, shell.exitValue());
        assertEquals(Runtime.JAVA, KeeperProbe.choose("here", Choice.AUTO, output, "java", "no-such-python3"));
        NoKeeperException e = assertThrows(NoKeeperException.class,
                () -> KeeperProbe.choose("here", Choice.PYTHON, output, "java", "no-such-python3"));
        assertTrue(e.getMessage(), e.getMessage().contains("(`no-such-python3 --version`: not found)"));
    }
}
