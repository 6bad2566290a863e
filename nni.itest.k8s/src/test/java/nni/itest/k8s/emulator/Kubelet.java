package nni.itest.k8s.emulator;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * The scheduler and the kubelet of the emulated cluster, on one node ({@value #NODE}): a pod is
 * scheduled, its volumes are set up (NFS volumes are the test's share folder, azureFile volumes the
 * emulated Azure file share's folder once its Secret's account and key mount it, PVCs a folder per
 * claim, ConfigMaps and Secrets written out with their modes, emptyDirs empty), its image is
 * "pulled" (an image named in {@code unpullable} fails as a registry would: ErrImagePull, then
 * ImagePullBackOff), its init containers and then its container run as local processes, and its
 * status is written the way the kubelet writes it (conditions, container states, exit codes,
 * {@code FallbackToLogsOnError} messages, phase). The container sees its mounts at local paths:
 * every mount path in its command, arguments and environment is rewritten to the local folder
 * (only whole path prefixes), so {@code /tmp/mount} is the share folder and nothing is created
 * outside the test's folders. A container's environment is the image's (the machine's PATH with
 * this JVM's Java first; an image named {@code ...nojava...} or {@code ...nopython...} has only a
 * too old {@code java} or a failing {@code python3}), HOSTNAME, the operator's
 * variables and its own (values, Secret references, field references). Deleting a pod sends
 * SIGTERM to its whole process tree and SIGKILL after the grace period. Images are not run: there
 * are no images; the container's command must be given. With an {@link #isolation}, every container
 * runs in a network namespace of its own, as pods of a cluster that cannot reach the manager's machine.
 *
 * <p>Every API write runs on {@link #executor}, the emulator's one thread.
 */
final class Kubelet {

    private static final Logger LOG = Logger.getLogger(Kubelet.class.getName());
    static final String NODE = "emulated-node";
    private static final String BARRIER_IMAGE = "frameworkcontroller/frameworkbarrier";

    private final KubernetesClient client;
    private final Path root;
    private final Path share;
    private final ScheduledExecutorService executor;
    private final Set<String> unpullable;
    private final Duration grace;
    private final Map<String, Running> running = new ConcurrentHashMap<>();
    private final java.util.Queue<Running> unscheduled = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private volatile boolean schedulingPaused;
    /** Where pods run cut off from the manager's port, or null: on this machine's network. */
    volatile nni.itest.cloud.emulator.TaskProcess.Isolation isolation;
    /** Where {@code azureFile} volumes come from, or null. */
    volatile AzureFileMounts azureFiles;

    /** A pod the kubelet runs. */
    private static final class Running {
        final String namespace;
        final String name;
        final Consumer<Pod> onChange;
        final Map<String, String> operatorEnvironment;
        Process process;
        boolean deleted;

        Running(String namespace, String name, Consumer<Pod> onChange, Map<String, String> operatorEnvironment) {
            this.namespace = namespace;
            this.name = name;
            this.onChange = onChange;
            this.operatorEnvironment = operatorEnvironment;
        }
    }

    Kubelet(KubernetesClient client, Path root, Path share, ScheduledExecutorService executor, Set<String> unpullable, Duration grace) {
        this.client = client;
        this.root = root;
        this.share = share;
        this.executor = executor;
        this.unpullable = unpullable;
        this.grace = grace;
    }

    /**
     * Runs a pod that exists in the API server (created by an operator). {@code onChange} hears
     * each status it writes, on the emulator's thread.
     */
    void run(Pod pod, Map<String, String> operatorEnvironment, Consumer<Pod> onChange) {
        Running run = new Running(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), onChange, operatorEnvironment);
        running.put(key(run.namespace, run.name), run);
        executor.execute(() -> schedule(run));
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    /** While paused, new pods stay Pending and unschedulable, as on a cluster without room; resuming schedules them. */
    void pauseScheduling(boolean pause) {
        schedulingPaused = pause;
        if (!pause) {
            executor.execute(() -> {
                for (Running run; (run = unscheduled.poll()) != null; ) {
                    schedule(run);
                }
            });
        }
    }

    private void schedule(Running run) {
        if (schedulingPaused) {
            unscheduled.add(run);
            update(run, p -> p.setStatus(new PodStatusBuilder().withPhase("Pending").addToConditions(new PodConditionBuilder()
                    .withType("PodScheduled").withStatus("False").withReason("Unschedulable").withMessage(
                            "0/1 nodes are available: 1 node(s) had untolerated taint {emulator/paused: }.")
                    .withLastTransitionTime(now()).build()).build()));
            return;
        }
        Pod pod = update(run, p -> {
            p.getSpec().setNodeName(NODE);
            p.setStatus(new PodStatusBuilder().withPhase("Pending").withHostIP("127.0.0.1")
                    .addToConditions(new PodConditionBuilder().withType("PodScheduled").withStatus("True")
                            .withLastTransitionTime(now()).build())
                    .withContainerStatuses(waiting(p.getSpec().getContainers(), "ContainerCreating", null)).build());
        });
        if (pod != null) {
            executor.schedule(() -> start(run, 0), 20, TimeUnit.MILLISECONDS);
        }
    }

    /** Sets up the volumes (waiting for the objects they need), "pulls" the image, runs the init containers, starts the container. */
    private void start(Running run, int attempt) {
        if (run.deleted) {
            return;
        }
        Pod pod = get(run);
        if (pod == null) {
            return;
        }
        Container container = pod.getSpec().getContainers().get(0);
        if (unpullable.contains(container.getImage())) {
            String reason = attempt == 0 ? "ErrImagePull" : "ImagePullBackOff";
            String message = attempt == 0 ? "rpc error: code = NotFound desc = failed to pull and unpack image \"" + container.getImage()
                    + "\": not found" : "Back-off pulling image \"" + container.getImage() + "\"";
            update(run, p -> p.getStatus().setContainerStatuses(waiting(p.getSpec().getContainers(), reason, message)));
            if (attempt == 0) {
                executor.schedule(() -> start(run, 1), 100, TimeUnit.MILLISECONDS);
            }
            return;
        }
        Path podFolder = root.resolve("pods").resolve(run.namespace).resolve(run.name);
        Map<String, Path> mounts;
        try {
            Files.createDirectories(podFolder.resolve("workdir"));
            mounts = mounts(pod, container.getVolumeMounts(), podFolder);
            if (pod.getSpec().getInitContainers() != null) {
                for (Container init : pod.getSpec().getInitContainers()) {
                    runInit(pod, init, mounts(pod, init.getVolumeMounts(), podFolder));
                }
            }
        } catch (MissingObject missing) {
            update(run, p -> p.getStatus().setContainerStatuses(waiting(p.getSpec().getContainers(), "ContainerCreating",
                    "MountVolume.SetUp failed: " + missing.getMessage())));
            executor.schedule(() -> start(run, attempt), 100, TimeUnit.MILLISECONDS);
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> environment;
        Pattern paths = mountPattern(mounts);
        try {
            environment = environment(pod, container, run.operatorEnvironment, podFolder, paths, mounts);
        } catch (MissingObject missing) {
            update(run, p -> p.getStatus().setContainerStatuses(waiting(p.getSpec().getContainers(), "CreateContainerConfigError",
                    missing.getMessage())));
            executor.schedule(() -> start(run, attempt), 100, TimeUnit.MILLISECONDS);
            return;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        List<String> command = new ArrayList<>();
        if (container.getCommand() != null) {
            command.addAll(container.getCommand());
        }
        if (container.getArgs() != null) {
            command.addAll(container.getArgs());
        }
        if (command.isEmpty()) {
            throw new IllegalStateException("pod " + run.name + ": the emulator has no image entrypoints; give the container a command");
        }
        List<String> words = command.stream().map(word -> rewrite(word, paths, mounts)).toList();
        nni.itest.cloud.emulator.TaskProcess.Isolation cutOff = isolation;
        if (cutOff != null) {
            try {
                words = nni.itest.cloud.emulator.TaskProcess.isolated(words.stream().map(Kubelet::quote).collect(Collectors.joining(" ")),
                        podFolder, cutOff);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        ProcessBuilder builder = new ProcessBuilder(words);
        builder.environment().clear();
        builder.environment().putAll(environment);
        builder.directory(container.getWorkingDir() == null ? podFolder.resolve("workdir").toFile()
                : Path.of(rewrite(container.getWorkingDir(), paths, mounts)).toFile());
        Path log = podFolder.resolve(container.getName() + ".log");
        builder.redirectErrorStream(true).redirectOutput(log.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        try {
            run.process = builder.start();
        } catch (IOException e) {
            finish(run, 128, "StartError", e.getMessage());
            return;
        }
        String startedAt = now();
        update(run, p -> {
            p.getStatus().setPhase("Running");
            p.getStatus().setPodIP("127.0.0.1");
            p.getStatus().setStartTime(startedAt);
            p.getStatus().getConditions().add(new PodConditionBuilder().withType("Ready").withStatus("True").withLastTransitionTime(startedAt)
                    .build());
            p.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder().withName(container.getName())
                    .withImage(container.getImage()).withReady(true).withRestartCount(0)
                    .withState(new ContainerStateBuilder().withNewRunning().withStartedAt(startedAt).endRunning().build()).build()));
        });
        Process process = run.process;
        process.onExit().thenAccept(exited -> executor.execute(() -> {
            String message = null;
            if (exited.exitValue() != 0 && "FallbackToLogsOnError".equals(container.getTerminationMessagePolicy())) {
                message = tail(log);
            }
            finish(run, exited.exitValue(), exited.exitValue() == 0 ? "Completed" : "Error", message);
        }));
    }

    /** The frameworkbarrier waits for every task to be scheduled, then writes the injector; others run as processes. */
    private void runInit(Pod pod, Container init, Map<String, Path> mounts) throws IOException {
        if (init.getImage().startsWith(BARRIER_IMAGE)) {
            Path target = mounts.get("/mnt/frameworkbarrier");
            Files.createDirectories(target);
            Files.writeString(target.resolve("injector.sh"), FrameworkControllerEmulator.injector(pod));
            return;
        }
        throw new IllegalStateException("pod " + pod.getMetadata().getName() + ": the emulator runs no init container but the frameworkbarrier");
    }

    private void finish(Running run, int exitCode, String reason, String message) {
        if (run.deleted) {
            return;
        }
        running.remove(key(run.namespace, run.name));
        String finishedAt = now();
        update(run, p -> {
            p.getStatus().setPhase(exitCode == 0 ? "Succeeded" : "Failed");
            Container container = p.getSpec().getContainers().get(0);
            p.getStatus().setContainerStatuses(List.of(new ContainerStatusBuilder().withName(container.getName())
                    .withImage(container.getImage()).withReady(false).withRestartCount(0)
                    .withState(new ContainerStateBuilder().withNewTerminated().withExitCode(exitCode).withReason(reason)
                            .withMessage(message).withFinishedAt(finishedAt).endTerminated().build()).build()));
        });
    }

    /** Deletes a pod's processes: SIGTERM to the whole tree, SIGKILL after the grace period to what is left. */
    void kill(String namespace, String name) {
        Running run = running.remove(key(namespace, name));
        if (run == null) {
            return;
        }
        run.deleted = true;
        if (run.process != null) {
            killTree(run.process.toHandle(), grace);
        }
    }

    static void killTree(ProcessHandle process, Duration grace) {
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        tree.add(0, process);
        tree.forEach(ProcessHandle::destroy);
        Thread killer = new Thread(() -> {
            long deadline = System.nanoTime() + grace.toNanos();
            while (System.nanoTime() < deadline && tree.stream().anyMatch(ProcessHandle::isAlive)) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    break;
                }
            }
            tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        }, "emulator-kill-" + process.pid());
        killer.setDaemon(true);
        killer.start();
    }

    /** Kills every pod still running (the emulator stops). */
    void close() {
        for (Running run : List.copyOf(running.values())) {
            kill(run.namespace, run.name);
        }
    }

    // ---- volumes ---------------------------------------------------------------------------------

    /** A ConfigMap, Secret or PVC a volume needs does not exist (yet). */
    private static final class MissingObject extends Exception {
        MissingObject(String message) {
            super(message);
        }
    }

    /** @return each mount path of the container and the local file or folder it is */
    private Map<String, Path> mounts(Pod pod, List<VolumeMount> volumeMounts, Path podFolder) throws IOException, MissingObject {
        Map<String, Path> mounts = new LinkedHashMap<>();
        if (volumeMounts == null) {
            return mounts;
        }
        for (VolumeMount mount : volumeMounts) {
            Volume volume = pod.getSpec().getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("pod " + pod.getMetadata().getName() + " mounts unknown volume "
                            + mount.getName()));
            Path base = volumeFolder(pod, volume, podFolder);
            Path local = mount.getSubPath() == null || mount.getSubPath().isEmpty() ? base : base.resolve(mount.getSubPath());
            if (mount.getSubPath() != null && (volume.getPersistentVolumeClaim() != null || volume.getNfs() != null
                    || volume.getAzureFile() != null)) {
                Files.createDirectories(local);
            }
            mounts.put(mount.getMountPath(), local);
        }
        return mounts;
    }

    private Path volumeFolder(Pod pod, Volume volume, Path podFolder) throws IOException, MissingObject {
        String namespace = pod.getMetadata().getNamespace();
        if (volume.getNfs() != null) {
            return share;
        }
        if (volume.getAzureFile() != null) {
            return azureFile(namespace, volume);
        }
        if (volume.getPersistentVolumeClaim() != null) {
            String claim = volume.getPersistentVolumeClaim().getClaimName();
            if (client.persistentVolumeClaims().inNamespace(namespace).withName(claim).get() == null) {
                throw new MissingObject("persistentvolumeclaim \"" + claim + "\" not found");
            }
            return Files.createDirectories(root.resolve("volumes").resolve(namespace).resolve(claim));
        }
        Path folder = Files.createDirectories(podFolder.resolve("volumes").resolve(volume.getName()));
        if (volume.getConfigMap() != null) {
            ConfigMap map = client.configMaps().inNamespace(namespace).withName(volume.getConfigMap().getName()).get();
            if (map == null) {
                throw new MissingObject("configmap \"" + volume.getConfigMap().getName() + "\" not found");
            }
            Map<String, byte[]> files = new LinkedHashMap<>();
            if (map.getData() != null) {
                map.getData().forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
            }
            if (map.getBinaryData() != null) {
                map.getBinaryData().forEach((k, v) -> files.put(k, Base64.getDecoder().decode(v)));
            }
            write(folder, files, volume.getConfigMap().getItems(), volume.getConfigMap().getDefaultMode());
        } else if (volume.getSecret() != null) {
            Secret secret = client.secrets().inNamespace(namespace).withName(volume.getSecret().getSecretName()).get();
            if (secret == null) {
                throw new MissingObject("secret \"" + volume.getSecret().getSecretName() + "\" not found");
            }
            Map<String, byte[]> files = new LinkedHashMap<>();
            secret.getData().forEach((k, v) -> files.put(k, Base64.getDecoder().decode(v)));
            write(folder, files, volume.getSecret().getItems(), volume.getSecret().getDefaultMode());
        } else if (volume.getEmptyDir() == null) {
            throw new IllegalStateException("pod " + pod.getMetadata().getName() + ": the emulator has no " + volume.getName() + " volume type");
        }
        return folder;
    }

    /** An {@code azureFile} volume: its Secret's account and key, mounted by {@link #azureFiles} (failing as mount fails). */
    private Path azureFile(String namespace, Volume volume) throws MissingObject {
        String secretName = volume.getAzureFile().getSecretName();
        Secret secret = client.secrets().inNamespace(namespace).withName(secretName).get();
        if (secret == null) {
            throw new MissingObject("secret \"" + secretName + "\" not found");
        }
        Map<String, String> data = secret.getData() == null ? Map.of() : secret.getData();
        if (!data.containsKey("azurestorageaccountname") || !data.containsKey("azurestorageaccountkey")) {
            throw new MissingObject("secret \"" + secretName + "\" has no azurestorageaccountname and azurestorageaccountkey");
        }
        AzureFileMounts mounts = azureFiles;
        if (mounts == null) {
            throw new IllegalStateException("the emulated node has no Azure Files to mount volume " + volume.getName() + " from");
        }
        try {
            return mounts.mount(decode(data.get("azurestorageaccountname")), decode(data.get("azurestorageaccountkey")),
                    volume.getAzureFile().getShareName());
        } catch (IOException e) {
            throw new MissingObject("volume \"" + volume.getName() + "\": mount failed: " + e.getMessage());
        }
    }

    private static String decode(String base64) {
        return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    }

    private static void write(Path folder, Map<String, byte[]> files, List<KeyToPath> items, Integer defaultMode) throws IOException {
        Map<String, String> paths = new LinkedHashMap<>();
        if (items == null || items.isEmpty()) {
            files.keySet().forEach(k -> paths.put(k, k));
        } else {
            items.forEach(item -> paths.put(item.getKey(), item.getPath()));
        }
        int mode = defaultMode == null ? 0644 : defaultMode;
        for (Map.Entry<String, String> entry : paths.entrySet()) {
            Path file = folder.resolve(entry.getValue());
            Files.createDirectories(file.getParent()); // an item's path may have folders
            Files.write(file, files.get(entry.getKey()));
            Set<PosixFilePermission> permissions = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            if ((mode & 0100) != 0) {
                permissions.add(PosixFilePermission.OWNER_EXECUTE);
            }
            Files.setPosixFilePermissions(file, permissions);
        }
    }

    // ---- the container's view --------------------------------------------------------------------

    /** Matches a mount path where it starts a path in a word: at the start or after a quote, space, '=' or ':'. */
    private static Pattern mountPattern(Map<String, Path> mounts) {
        String alternatives = mounts.keySet().stream().sorted(Comparator.comparingInt(String::length).reversed())
                .map(Pattern::quote).collect(Collectors.joining("|"));
        return mounts.isEmpty() ? null : Pattern.compile("(?<=^|[\\s\"'=:])(" + alternatives + ")(?=$|[/\\s\"';])");
    }

    private static String rewrite(String text, Pattern paths, Map<String, Path> mounts) {
        if (paths == null || text == null) {
            return text;
        }
        Matcher m = paths.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(mounts.get(m.group(1)).toString()));
        }
        m.appendTail(out);
        return out.toString();
    }

    private Map<String, String> environment(Pod pod, Container container, Map<String, String> operatorEnvironment, Path podFolder,
                                            Pattern paths, Map<String, Path> mounts) throws IOException, MissingObject {
        Map<String, String> env = new LinkedHashMap<>();
        String image = container.getImage();
        List<String> path = new ArrayList<>();
        if (image.contains("nojava") || image.contains("nopython")) {
            // an image without them: what the keeper script finds instead is too old
            Path stubs = Files.createDirectories(podFolder.resolve("image-bin"));
            if (image.contains("nojava")) {
                stub(stubs.resolve("java"), "echo 'openjdk version \"1.8.0_392\"' >&2");
            }
            if (image.contains("nopython")) {
                stub(stubs.resolve("python3"), "exit 1");
            }
            path.add(stubs.toString());
        }
        path.add(Path.of(System.getProperty("java.home"), "bin").toString());
        path.addAll(List.of(System.getenv().getOrDefault("PATH", "/usr/local/bin:/usr/bin:/bin").split(":")));
        env.put("PATH", String.join(":", path));
        env.put("HOME", Files.createDirectories(podFolder.resolve("home")).toString());
        env.put("LANG", "C.UTF-8");
        String hostname = pod.getSpec().getHostname() != null ? pod.getSpec().getHostname() : pod.getMetadata().getName();
        env.put("HOSTNAME", hostname);
        env.putAll(operatorEnvironment);
        if (container.getEnv() != null) {
            for (EnvVar variable : container.getEnv()) {
                env.put(variable.getName(), rewrite(value(pod, variable), paths, mounts));
            }
        }
        return env;
    }

    private static void stub(Path file, String body) throws IOException {
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        file.toFile().setExecutable(true);
    }

    private String value(Pod pod, EnvVar variable) throws MissingObject {
        if (variable.getValueFrom() == null) {
            return variable.getValue() == null ? "" : variable.getValue();
        }
        if (variable.getValueFrom().getSecretKeyRef() != null) {
            var reference = variable.getValueFrom().getSecretKeyRef();
            Secret secret = client.secrets().inNamespace(pod.getMetadata().getNamespace()).withName(reference.getName()).get();
            if (secret == null || secret.getData() == null || !secret.getData().containsKey(reference.getKey())) {
                throw new MissingObject("secret \"" + reference.getName() + "\" not found");
            }
            return new String(Base64.getDecoder().decode(secret.getData().get(reference.getKey())), StandardCharsets.UTF_8);
        }
        if (variable.getValueFrom().getFieldRef() != null) {
            return switch (variable.getValueFrom().getFieldRef().getFieldPath()) {
                case "metadata.name" -> pod.getMetadata().getName();
                case "metadata.namespace" -> pod.getMetadata().getNamespace();
                case "metadata.uid" -> pod.getMetadata().getUid();
                case "status.podIP", "status.hostIP" -> "127.0.0.1";
                case "spec.nodeName" -> NODE;
                default -> "";
            };
        }
        throw new IllegalStateException("pod " + pod.getMetadata().getName() + ": the emulator cannot resolve " + variable.getName());
    }

    // ---- status ------------------------------------------------------------------------------------

    private static List<ContainerStatus> waiting(List<Container> containers, String reason, String message) {
        List<ContainerStatus> statuses = new ArrayList<>();
        for (Container container : containers) {
            statuses.add(new ContainerStatusBuilder().withName(container.getName()).withImage(container.getImage()).withReady(false)
                    .withRestartCount(0).withState(new ContainerStateBuilder().withNewWaiting().withReason(reason).withMessage(message)
                            .endWaiting().build()).build());
        }
        return statuses;
    }

    private Pod get(Running run) {
        return client.pods().inNamespace(run.namespace).withName(run.name).get();
    }

    /** Writes the pod's status (after {@code change}) and tells its operator; null when the pod is gone. */
    private Pod update(Running run, Consumer<Pod> change) {
        if (run.deleted) {
            return null;
        }
        // as a kubelet does: a write that lost the race with another writer (409) is made again on the pod as it is now
        for (int attempt = 1; ; attempt++) {
            try {
                Pod pod = get(run);
                if (pod == null) {
                    return null;
                }
                if (pod.getStatus() == null) {
                    pod.setStatus(new PodStatus());
                }
                change.accept(pod);
                Pod written = client.pods().inNamespace(run.namespace).resource(pod).update();
                run.onChange.accept(written);
                return written;
            } catch (KubernetesClientException e) {
                if (e.getCode() != 409 || attempt == 10) {
                    LOG.warning("pod " + run.name + ": status not written: " + e.getMessage());
                    return null;
                }
            }
        }
    }

    private static String tail(Path log) {
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8);
            String[] lines = text.split("\n");
            int from = Math.max(0, lines.length - 80);
            String tail = String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
            return tail.length() > 2048 ? tail.substring(tail.length() - 2048) : tail;
        } catch (IOException e) {
            return "";
        }
    }

    private static String quote(String word) {
        return "'" + word.replace("'", "'\\''") + "'";
    }

    static String now() {
        return Instant.now().truncatedTo(java.time.temporal.ChronoUnit.SECONDS).toString();
    }
}
