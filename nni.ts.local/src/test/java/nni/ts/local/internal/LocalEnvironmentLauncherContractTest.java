package nni.ts.local.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperRuntime;
import nni.api.testkit.environment.EnvironmentLauncherContract;

/**
 * Local reuse mode's launcher keeps the launcher contract: real Java keepers as local processes,
 * reporting to the kit's stand-in manager.
 */
public class LocalEnvironmentLauncherContractTest extends EnvironmentLauncherContract {

    private Path environments;

    @Override
    protected EnvironmentLauncher launcher() throws IOException {
        environments = Files.createTempDirectory("nni-local-environments-");
        return new LocalEnvironmentLauncher(environments, 5, null, "localhost", null);
    }

    @Override
    protected Map<KeeperRuntime, Path> keeperFiles() {
        return Map.of(KeeperRuntime.JAVA, Path.of(System.getProperty("nni.keeper.jar")));
    }

    /** Environments below a regular file: the keeper's directory cannot be made. */
    @Override
    protected EnvironmentLauncher launcherThatCannotStart() throws IOException {
        Path file = Files.createFile(environments.resolve("not-a-directory"));
        return new LocalEnvironmentLauncher(file.resolve("environments"), 5, null, "localhost", null);
    }

    @Override
    protected void closeLauncher(EnvironmentLauncher launcher) throws IOException {
        if (launcher != null && environments != null && Files.exists(environments)) {
            try (Stream<Path> walk = Files.walk(environments)) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
