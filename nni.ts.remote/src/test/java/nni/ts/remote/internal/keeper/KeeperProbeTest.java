package nni.ts.remote.internal.keeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

import org.junit.Test;

import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperRuntime;
import nni.ts.remote.internal.keeper.KeeperProbe.Found;
import nni.ts.remote.internal.keeper.KeeperProbe.NoKeeperException;

public class KeeperProbeTest {

    private static final String SEP = "\n" + KeeperProbe.SEPARATOR + "\n";
    private static final String JAVA_17 = "openjdk version \"17.0.2\" 2022-01-18\nOpenJDK Runtime Environment (build 17.0.2+8-86)";
    private static final String JAVA_8 = "java version \"1.8.0_292\"\nJava(TM) SE Runtime Environment";
    private static final String NO_JAVA = "bash: line 1: java: command not found";
    private static final String PYTHON_311 = "Python 3.11.2";
    private static final String PYTHON_36 = "Python 3.6.15";
    private static final String NO_PYTHON = "bash: line 1: python3: command not found";

    private static KeeperRuntime choose(KeeperChoice choice, String java, String python) throws NoKeeperException {
        return found(choice, java, python).runtime();
    }

    private static Found found(KeeperChoice choice, String java, String python) throws NoKeeperException {
        return KeeperProbe.choose("gpu-1:22", choice, java + SEP + python + "\n", "java", "python3");
    }

    @Test
    public void autoPrefersJava17AndTakesPython37WhenJavaIsMissingOrOld() throws Exception {
        assertEquals(KeeperRuntime.JAVA, choose(KeeperChoice.AUTO, JAVA_17, PYTHON_311));
        assertEquals(KeeperRuntime.JAVA, choose(KeeperChoice.AUTO, "Picked up JAVA_TOOL_OPTIONS: -Xmx1g\n" + JAVA_17, NO_PYTHON));
        assertEquals(KeeperRuntime.PYTHON, choose(KeeperChoice.AUTO, NO_JAVA, PYTHON_311));
        assertEquals(KeeperRuntime.PYTHON, choose(KeeperChoice.AUTO, JAVA_8, "Python 3.7.16"));
        assertEquals(KeeperRuntime.PYTHON, choose(KeeperChoice.PYTHON, JAVA_17, PYTHON_311));
    }

    @Test
    public void whatWasFoundNamesTheRuntimeAndItsVersion() throws Exception {
        assertEquals("java 17", found(KeeperChoice.AUTO, JAVA_17, PYTHON_311).describe());
        assertEquals("java 21", found(KeeperChoice.AUTO, "openjdk version \"21\" 2023-09-19", NO_PYTHON).describe());
        assertEquals("python 3.11", found(KeeperChoice.AUTO, NO_JAVA, PYTHON_311).describe());
        assertEquals("python 3.7", found(KeeperChoice.PYTHON, JAVA_17, "Python 3.7.3").describe());
    }

    @Test
    public void aMachineWithNeitherIsNamedWithBothRequirements() {
        NoKeeperException e = assertThrows(NoKeeperException.class, () -> choose(KeeperChoice.AUTO, JAVA_8, PYTHON_36));
        assertEquals("machine gpu-1:22 can run no trial keeper: it needs Java 17 or newer (`java -version`: java version \"1.8.0_292\")"
                + " or Python 3.7 or newer (`python3 --version`: Python 3.6.15)", e.getMessage());
        e = assertThrows(NoKeeperException.class, () -> choose(KeeperChoice.AUTO, NO_JAVA, NO_PYTHON));
        assertTrue(e.getMessage(), e.getMessage().contains("(`java -version`: not found)") && e.getMessage().contains("(`python3 --version`: not found)"));
    }

    @Test
    public void aForcedChoiceNeedsThatRuntime() throws Exception {
        assertEquals(KeeperRuntime.JAVA, choose(KeeperChoice.JAVA, JAVA_17, NO_PYTHON));
        NoKeeperException e = assertThrows(NoKeeperException.class, () -> choose(KeeperChoice.JAVA, NO_JAVA, PYTHON_311));
        assertTrue(e.getMessage(), e.getMessage().startsWith("machine gpu-1:22 cannot run the Java trial keeper (keeper = java)"));
        e = assertThrows(NoKeeperException.class, () -> choose(KeeperChoice.PYTHON, JAVA_17, PYTHON_36));
        assertTrue(e.getMessage(), e.getMessage().contains("keeper = python") && e.getMessage().contains("Python 3.6.15"));
        assertEquals(KeeperChoice.PYTHON, KeeperChoice.of(" Python "));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> KeeperChoice.of("jvm"));
        assertTrue(bad.getMessage(), bad.getMessage().startsWith("keeper: expected java, python or auto"));
    }

    @Test
    public void theProbeCommandAnswersOnThisMachine() throws Exception {
        Process shell = new ProcessBuilder("/bin/bash", "-c", KeeperProbe.command("java", "no-such-python3")).start();
        String output = new String(shell.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(shell.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, shell.exitValue());
        assertEquals(KeeperRuntime.JAVA, KeeperProbe.choose("here", KeeperChoice.AUTO, output, "java", "no-such-python3").runtime());
        NoKeeperException e = assertThrows(NoKeeperException.class,
                () -> KeeperProbe.choose("here", KeeperChoice.PYTHON, output, "java", "no-such-python3"));
        assertTrue(e.getMessage(), e.getMessage().contains("(`no-such-python3 --version`: not found)"));
    }
}
