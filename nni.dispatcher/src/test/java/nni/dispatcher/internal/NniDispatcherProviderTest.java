package nni.dispatcher.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherException;

public class NniDispatcherProviderTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private NniDispatcherProvider provider;

    @After
    public void deactivate() {
        if (provider != null) {
            provider.deactivate();
        }
    }

    private NniDispatcherProvider provider(String python) {
        NniDispatcherProvider.Config config = (NniDispatcherProvider.Config) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {NniDispatcherProvider.Config.class},
                (proxy, method, args) -> method.getName().equals("python_command") ? python : method.getDefaultValue());
        provider = new NniDispatcherProvider(config, null);
        return provider;
    }

    private DispatcherContext context(Map<String, Object> experiment) throws Exception {
        Path directory = folder.newFolder("exp").toPath();
        Files.createDirectories(directory.resolve("log"));
        return (DispatcherContext) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {DispatcherContext.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "experimentId" -> "exp00001";
                    case "experimentDirectory" -> directory;
                    case "experimentConfig" -> experiment;
                    case "tuner" -> AlgorithmSection.builder().name("SMAC").build();
                    case "assessor" -> Optional.empty();
                    case "searchSpace" -> Map.of();
                    case "resumedParameters" -> List.of();
                    case "resumeData" -> "[]";
                    default -> null;
                });
    }

    @Test
    public void aMissingNniPackageIsOneMessageNamingTheInterpreterAndTheAlgorithm() throws Exception {
        // an interpreter without site-packages: nni cannot be imported, whatever this machine has installed
        Path python = folder.getRoot().toPath().resolve("bare-python");
        Files.writeString(python, "#!/bin/sh\nexec python3 -S \"$@\"\n");
        Files.setPosixFilePermissions(python, PosixFilePermissions.fromString("rwxr-xr-x"));
        DispatcherException e = assertThrows(DispatcherException.class,
                () -> provider(python.toString()).start(context(Map.of())));
        assertTrue(e.getMessage(), e.getMessage().startsWith("tuner SMAC runs through NNI's dispatcher, which needs the nni package, and "
                + python + " cannot import it (ModuleNotFoundError: No module named 'nni'): install it there"));
    }

    @Test
    public void anInterpreterNotOnThePathIsNamedWithThePathSearched() throws Exception {
        DispatcherException e = assertThrows(DispatcherException.class,
                () -> provider("python3-nowhere").start(context(Map.of("trainingService", Map.of("pythonPath", "/opt/venv/bin")))));
        assertTrue(e.getMessage(), e.getMessage().startsWith("tuner SMAC runs through NNI's dispatcher, which needs Python with the nni"
                + " package; no python3-nowhere was found on PATH (/opt/venv/bin:"));
    }

    @Test
    public void theInterpreterIsTheConfiguredCommandElseNniOsgiPythonElsePython3() {
        assertEquals("/opt/py/bin/python3", NniDispatcherProvider.pythonCommand("/opt/py/bin/python3", "/elsewhere/python"));
        assertEquals("/elsewhere/python", NniDispatcherProvider.pythonCommand("", "/elsewhere/python"));
        assertEquals("python3", NniDispatcherProvider.pythonCommand("", null));
        assertEquals("python3", NniDispatcherProvider.pythonCommand(" ", ""));
    }

    @Test
    public void theTunerGetsTheGpusOfTunerGpuIndices() {
        assertEquals("0,2", NniDispatcherProvider.gpuIndices(List.of(0, 2)));
        assertEquals("", NniDispatcherProvider.gpuIndices(null));
    }
}
