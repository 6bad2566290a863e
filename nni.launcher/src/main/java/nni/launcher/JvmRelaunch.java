package nni.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import sun.misc.Signal;

/**
 * Gives the runtime the JVM settings it is measured with, which a runnable jar cannot name in its
 * manifest: started by {@code java -jar nni-osgi.jar} with none of its own, the launcher starts
 * the same jar again in a child JVM with {@link #DEFAULT_OPTIONS} (a small serial heap, the client
 * compiler only, which leaves the second core to start-up work instead of C2) and a class data
 * sharing archive of the home's, then only waits for it and exits with its exit code.
 *
 * <p>The child shares the terminal (standard input, output and error are the parent's own), so
 * its console, {@code client} and Ctrl-C behave as in one process: the terminal signals the whole
 * foreground process group, so the parent ignores SIGINT and leaves it to the child. SIGTERM or
 * SIGHUP to the parent stop the child in order (its shutdown hook sends SIGTERM and waits). A
 * parent killed outright takes the child with it: the child holds a loopback connection to the
 * parent and halts, as the parent did, when the connection closes.
 *
 * <p>Not relaunched: when the java command line chose JVM settings ({@code -Xmx}, {@code -XX:...},
 * an agent, {@code JAVA_TOOL_OPTIONS}), when {@value #OPTIONS_VARIABLE} is {@code same}, or when
 * the launcher does not run from a jar. {@value #OPTIONS_VARIABLE} set to anything else replaces
 * {@link #DEFAULT_OPTIONS}.
 *
 * <p>The archive ({@code <home>/jvm/nni-osgi.jsa}, with {@code nni-osgi.key} naming the jar and
 * the JVM it was made from, so that a new build or another Java makes a new one) is written by the
 * first start's JVM as it exits ({@code -XX:ArchiveClassesAtExit}) and taken by the next starts; it
 * holds the JDK's, Felix's and the launcher's classes. {@code bin/nni-osgi} execs java with the same
 * options and that archive, when its key is current, so that no parent JVM waits. A JVM without the
 * base archive every archive extends runs the child without one ({@link #baseArchiveMapped()}).
 */
final class JvmRelaunch {

    /** The environment variable with the child JVM's options, or {@code same} for no child JVM. */
    static final String OPTIONS_VARIABLE = "NNI_OSGI_JAVA_OPTIONS";
    /** Set in the child: the pid of the process the user started, which the home's lock names. */
    static final String LAUNCHER_PID = "nni.launcher.pid";
    /** Set in the child: the loopback port of the parent's liveness connection. */
    static final String LAUNCHER_WATCH = "nni.launcher.watch";

    /** The home's class data sharing archive, in {@code <home>/jvm/}, and the key file naming what it was made from. */
    static final String ARCHIVE = "nni-osgi.jsa";
    static final String KEY = "nni-osgi.key";

    /** What the runtime is measured with: 256 MB of heap holds {@code ScaleBenchmark} (README, Measurements). */
    static final List<String> DEFAULT_OPTIONS = List.of("-XX:+UseSerialGC", "-Xms16m", "-Xmx256m", "-XX:TieredStopAtLevel=1");

    /** Options on the java command line that choose the JVM's settings: the user's choice is kept. */
    private static final List<String> USER_SETTINGS = List.of("-Xmx", "-Xms", "-Xss", "-XX:", "-Xshare", "-Xint",
            "-javaagent", "-agentlib", "-agentpath", "-Xdebug", "-Xrun", "-Xlog", "-verbose");

    private JvmRelaunch() {
    }

    /** @return whether this JVM should start the runtime in a child JVM with the launcher's settings */
    static boolean wanted(Map<String, String> environment) {
        if (System.getProperty(LAUNCHER_PID) != null || "same".equals(environment.get(OPTIONS_VARIABLE))
                || environment.get("JAVA_TOOL_OPTIONS") != null || environment.get("JDK_JAVA_OPTIONS") != null) {
            return false;
        }
        List<String> options = javaOptions();
        return ownJar() != null && options != null
                && options.stream().noneMatch(option -> USER_SETTINGS.stream().anyMatch(option::startsWith));
    }

    /**
     * @return the options before {@code -jar} on this JVM's command line, or {@code null} when it
     *         was not started with {@code -jar} (read from the process's command line rather than
     *         the management beans, whose classes would cost the waiting parent memory)
     */
    private static List<String> javaOptions() {
        List<String> arguments = ProcessHandle.current().info().arguments().map(List::of).orElse(List.of());
        int jar = arguments.indexOf("-jar");
        return jar < 0 ? null : arguments.subList(0, jar);
    }

    /**
     * @return the runnable jar this launcher runs from, by its real path, or {@code null} when it
     *         runs from classes. The real path: the class path names the jar as the user typed it
     *         (a symbolic link, say) while the code source names the file, and the child and its
     *         archive's name must not depend on which path started it.
     */
    private static Path ownJar() {
        try {
            Path location = Path.of(JvmRelaunch.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path classPath = Path.of(System.getProperty("java.class.path"));
            return Files.isRegularFile(location) && Files.isSameFile(location, classPath) ? location.toRealPath() : null;
        } catch (URISyntaxException | IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Runs the runtime in a child JVM and waits for it.
     *
     * @param home the runtime's home, where the class data sharing archive is kept
     * @param args the command line, passed on unchanged
     * @return the child's exit code
     */
    static int run(Path home, Map<String, String> environment, String[] args) throws IOException, InterruptedException {
        Path jar = ownJar();
        String custom = environment.get(OPTIONS_VARIABLE);
        List<String> options = custom == null ? DEFAULT_OPTIONS : Arrays.asList(custom.strip().split("\\s+"));
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(options.stream().filter(option -> !option.isEmpty()).toList());
        Path archive = archive(home);
        Path writing = null;
        if (archive != null && baseArchiveMapped()
                && options.stream().noneMatch(option -> option.startsWith("-Xshare") || option.contains("Archive"))) {
            // a warning on stdout would mix with what a command prints: an unusable archive is just not used
            command.add("-Xlog:cds=off,cds+dynamic=off");
            if (current(archive, jar)) {
                command.add("-XX:SharedArchiveFile=" + archive);
            } else {
                writing = archive.resolveSibling(archive.getFileName() + "." + ProcessHandle.current().pid() + ".tmp");
                command.add("-XX:ArchiveClassesAtExit=" + writing);
            }
        }
        command.addAll(javaOptions());
        try (ServerSocket watch = new ServerSocket()) {
            watch.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 1);
            command.add("-D" + LAUNCHER_PID + "=" + ProcessHandle.current().pid());
            command.add("-D" + LAUNCHER_WATCH + "=" + watch.getLocalPort());
            command.add("-jar");
            command.add(jar.toString());
            command.addAll(List.of(args));
            // the terminal sends Ctrl-C to the child too: it decides what an interrupt means
            Signal.handle(new Signal("INT"), signal -> {
            });
            Process child = new ProcessBuilder(command).inheritIO().start();
            // accepted, the connection ends with this process: a connection left waiting in the backlog would not
            Thread accept = new Thread(() -> {
                try {
                    Socket held = watch.accept();
                    held.getInputStream().read(); // until the child is gone; the socket closes with the process
                } catch (IOException e) {
                    // the launcher ends
                }
            }, "nni-launcher-watch");
            accept.setDaemon(true);
            accept.start();
                Path written = writing;
            Thread stop = new Thread(() -> {
                child.destroy();
                try {
                    // here too: a stop by signal may end this JVM before the main thread keeps the archive
                    keep(written, archive, jar, child.waitFor());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }, "nni-launcher-stop");
            Runtime.getRuntime().addShutdownHook(stop);
            int code = child.waitFor();
            keep(writing, archive, jar, code);
            return code;
        }
    }

    /**
     * Called in the child: halts this JVM when the parent's liveness connection closes, that is
     * when the parent is gone without stopping the child first (killed outright).
     */
    static void followLauncher() {
        Integer port = Integer.getInteger(LAUNCHER_WATCH);
        if (port == null) {
            return;
        }
        Socket connection = new Socket();
        try {
            connection.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
        } catch (IOException e) {
            Runtime.getRuntime().halt(1); // the parent is gone already
        }
        Thread follower = new Thread(() -> {
            try (InputStream in = connection.getInputStream()) {
                while (in.read() >= 0) {
                    // the parent sends nothing; the read ends when its side closes
                }
            } catch (IOException e) {
                // reset: the parent is gone
            }
            Runtime.getRuntime().halt(1);
        }, "nni-launcher-follower");
        follower.setDaemon(true);
        follower.start();
    }

    /**
     * @return whether this JVM runs with the Java installation's base class data sharing archive,
     *         which the home's archive extends: a JVM without one (a jlink image made without
     *         {@code --generate-cds-archive}, some distributions) refuses to start at all with
     *         {@code -XX:ArchiveClassesAtExit} or {@code -XX:SharedArchiveFile}. The JVM says so in
     *         {@code java.vm.info} ("mixed mode, sharing"), as {@code java -version} prints it; the
     *         child runs the same java with the same sharing default ({@code -Xshare:auto}).
     */
    static boolean baseArchiveMapped() {
        return String.valueOf(System.getProperty("java.vm.info")).contains("sharing");
    }

    /** @return the home's archive, or {@code null} when the home has no room for it */
    private static Path archive(Path home) {
        try {
            Path folder = home.resolve("jvm");
            Files.createDirectories(folder);
            return folder.resolve(ARCHIVE);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * @return what the archive was made from, as {@code bin/nni-osgi} computes it too (it execs java
     *         with the archive when the key file says it is this jar's and this Java's): the jar's real
     *         path, size and modification second, the java command's real path and the size and
     *         modification second of its JVM library (a Java updated in place changes it). A JVM
     *         refuses an archive of another jar or JVM silently, and it would never be rewritten.
     */
    static String key(Path jar) throws IOException {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java").toRealPath();
        Path library = java.getParent().getParent().resolve("lib").resolve("server").resolve("libjvm.so");
        return jar.toRealPath() + " " + stamp(jar) + " " + java + " " + (Files.isRegularFile(library) ? stamp(library) : "-");
    }

    private static String stamp(Path file) throws IOException {
        return Files.size(file) + " " + Files.getLastModifiedTime(file).to(TimeUnit.SECONDS);
    }

    /** @return whether the home's archive was made from this jar with this Java */
    private static boolean current(Path archive, Path jar) {
        try {
            return Files.isRegularFile(archive) && Files.readString(archive.resolveSibling(KEY)).strip().equals(key(jar));
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Takes the archive the child wrote when it ran the runtime (not when it was refused: a bad
     * home or a busy port or home load few classes), and removes the archives of other jars and
     * what killed starts left.
     */
    private static synchronized void keep(Path written, Path archive, Path jar, int code) {
        if (written == null || !Files.isRegularFile(written)) {
            return;
        }
        try {
            if (code == Main.EXIT_USAGE || code == Main.EXIT_TAKEN || Files.size(written) == 0) {
                Files.deleteIfExists(written);
                return;
            }
            // the key names the archive's jar and JVM: gone while the archive is replaced, written once it is whole
            Path key = archive.resolveSibling(KEY);
            Files.deleteIfExists(key);
            Files.move(written, archive, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            Path keyWritten = Files.writeString(written.resolveSibling(KEY + ".tmp"), key(jar) + "\n");
            Files.move(keyWritten, key, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (Stream<Path> others = Files.list(archive.getParent())) {
                for (Path other : others.filter(path -> !path.equals(archive) && !path.equals(key))
                        .toList()) {
                    Files.deleteIfExists(other);
                }
            }
        } catch (IOException e) {
            // without an archive the next start is only slower
        }
    }
}
