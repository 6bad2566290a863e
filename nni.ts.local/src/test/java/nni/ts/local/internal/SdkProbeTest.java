package nni.ts.local.internal;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.model.TrialJob;
import nni.api.platform.SessionContext;

/** The trial SDK check ("auto") looks where the trial runs: its code directory, not the runtime's working directory. */
public class SdkProbeTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private static boolean python3() throws Exception {
        try {
            return new ProcessBuilder("python3", "--version").start().waitFor() == 0;
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static SessionContext context(Path experiment, Path code) {
        return new SessionContext() {
            @Override
            public String experimentId() {
                return "probe001";
            }

            @Override
            public Path experimentDirectory() {
                return experiment;
            }

            @Override
            public Map<String, Object> section() {
                return Map.of("platform", "local", "trialCommand", "python3 main.py", "trialCodeDirectory", code.toString());
            }

            @Override
            public void trialChanged(TrialJob trial) {
            }

            @Override
            public void metricReported(String trialId, String line) {
            }

            @Override
            public String platform() {
                return "local";
            }

            @Override
            public void capacityChanged() {
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static <A> A defaults(Class<A> type) {
        return (A) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> method.getDefaultValue());
    }

    @Test
    public void theTrialsCodeDirectoryDecidesWhetherTheShippedSdkIsNeeded() throws Exception {
        assumeTrue("python3 is needed", python3());
        Path withNni = folder.newFolder("with-nni").toPath();
        Files.createDirectories(withNni.resolve("nni"));
        Files.writeString(withNni.resolve("nni").resolve("__init__.py"), "");
        Path without = folder.newFolder("without").toPath();
        assumeTrue("an installed nni package makes every directory import it", !LocalPlatform.nniImportable(without));

        assertTrue(LocalPlatform.nniImportable(withNni));
        LocalPlatform platform = new LocalPlatform(defaults(LocalPlatform.Config.class));
        assertFalse("the trial's code has its own nni", platform.needsShippedSdk(context(folder.getRoot().toPath(), withNni)));
        assertTrue("what the runtime's working directory holds does not count", platform.needsShippedSdk(context(
                folder.getRoot().toPath(), without)));
    }
}
