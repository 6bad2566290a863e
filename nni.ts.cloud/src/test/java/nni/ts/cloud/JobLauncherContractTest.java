package nni.ts.cloud;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperRuntime;
import nni.api.testkit.environment.EnvironmentLauncherContract;

/**
 * {@link JobLauncher}, the launcher the OpenPAI and DLTS platforms share, keeps the launcher
 * contract. Its cluster here is this machine: a job is the spec's keeper command run by
 * {@code bash} in a session of its own (as a container runs its entry point), its status the
 * process's; the REST side of each cluster is tested against its emulator in nni.itest.cloud. The
 * failure cases are the answers a cluster gives: 401 (credentials refused) and 503 (busy).
 */
public class JobLauncherContractTest extends EnvironmentLauncherContract {

    private Path jobs;
    private JobLauncher launcher;

    @Override
    protected EnvironmentLauncher launcher() throws IOException {
        jobs = Files.createTempDirectory("nni-cloud-jobs-");
        launcher = new JobLauncher(new LocalJobs(jobs), "Local", "contract-jobs", Duration.ofMillis(200), Duration.ofSeconds(10), () -> { });
        return launcher;
    }

    @Override
    protected EnvironmentLauncher launcherThatCannotStart() {
        return new JobLauncher(refusing(new CloudException(CloudException.Kind.AUTH, 401, "the cluster refused the token (401)", null)),
                "Local", "contract-refused", Duration.ofSeconds(1), Duration.ofSeconds(10), () -> { });
    }

    @Override
    protected EnvironmentLauncher launcherThatCannotStartNow() {
        return new JobLauncher(refusing(new CloudException(CloudException.Kind.TRANSIENT, 503, "the cluster is busy (503)", null)),
                "Local", "contract-busy", Duration.ofSeconds(1), Duration.ofSeconds(10), () -> { });
    }

    @Override
    protected Map<KeeperRuntime, Path> keeperFiles() {
        return Map.of(KeeperRuntime.JAVA, Path.of(System.getProperty("nni.keeper.jar")));
    }

    @Override
    protected void closeLauncher(EnvironmentLauncher launcher) throws IOException {
        ((JobLauncher) launcher).close();
        if (launcher == this.launcher && Files.exists(jobs)) {
            try (Stream<Path> walk = Files.walk(jobs)) {
                for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    private static JobLauncher.Api refusing(CloudException answer) {
        return new JobLauncher.Api() {
            @Override
            public String submit(EnvironmentSpec spec) throws CloudException {
                throw answer;
            }

            @Override
            public JobStatus status(String handle) {
                return JobStatus.missing();
            }

            @Override
            public void stop(String handle) {
            }
        };
    }

    /** Jobs as local processes: one folder each below {@code root}, handle {@code job-<n>}. */
    private static final class LocalJobs implements JobLauncher.Api {
        private final Path root;
        private final AtomicInteger count = new AtomicInteger();
        private final Map<String, Process> processes = new ConcurrentHashMap<>();

        LocalJobs(Path root) {
            this.root = root;
        }

        @Override
        public String submit(EnvironmentSpec spec) throws CloudException {
            String handle = "job-" + count.incrementAndGet();
            Path folder = root.resolve(handle);
            List<String> command = new ArrayList<>(List.of("setsid"));
            command.addAll(spec.command(KeeperRuntime.JAVA, spec.keeperFile(KeeperRuntime.JAVA).toString(),
                    spec.codeArchive().toString(), folder.resolve("work").toString()));
            try {
                Files.createDirectories(folder);
                ProcessBuilder builder = new ProcessBuilder(command).directory(folder.toFile())
                        .redirectOutput(folder.resolve("stdout").toFile()).redirectError(folder.resolve("stderr").toFile())
                        .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
                builder.environment().put(EnvironmentSpec.TOKEN_VARIABLE, spec.token());
                processes.put(handle, builder.start());
                return handle;
            } catch (IOException e) {
                throw new CloudException(CloudException.Kind.REFUSED, 400, "cannot run the job: " + e.getMessage(), null);
            }
        }

        @Override
        public JobStatus status(String handle) {
            Process process = processes.get(handle);
            if (process == null) {
                return JobStatus.missing();
            }
            return process.isAlive() ? JobStatus.of(JobStatus.Phase.RUNNING, "", "")
                    : JobStatus.of(JobStatus.Phase.ENDED, "exit code " + process.exitValue(), "");
        }

        @Override
        public void stop(String handle) {
            Process process = processes.get(handle);
            if (process != null) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        }
    }
}
