package nni.itest.sshd;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Real OpenSSH servers for tests: {@code sshd} on 127.0.0.2, 127.0.0.3, ... with free ports, a
 * generated ed25519 host key each, root logging in with a generated key (one without and one with
 * a passphrase), and the local user {@link #USER} logging in with a password generated once per
 * machine (kept root-only in {@value #PASSWORD_FILE}, so that test runs that overlap never change
 * it under each other).
 * Installs {@code openssh-server} with apt-get when sshd is missing and the tests run as root
 * (as on CI); otherwise {@link #unavailableReason()} says why the tests cannot run.
 *
 * <p>Each sshd runs in a mount namespace of its own where the login users' homes (root's and
 * {@link #USER}'s) are new empty folders in the harness's directory: a login never reads or writes
 * this machine's real home. Its start files are not ours to run — a shell started by sshd reads
 * {@code ~/.bashrc}, which on a developer's machine may wait a minute for a version manager's lock
 * that a killed trial left behind — and what a test leaves in a home goes with the harness.
 *
 * <p>Everything lives in one temporary directory; {@link #close()} stops the servers.
 */
public final class SshdHarness implements AutoCloseable {

    static final String SSHD = "/usr/sbin/sshd";
    /** The local user that logs in with a password. */
    public static final String USER = "nnitest";
    /** The passphrase of {@link #passphraseKey()}. */
    public static final String PASSPHRASE = "correct horse battery staple";

    static final String PASSWORD_FILE = "/var/lib/nni-itest/" + USER + ".password";

    private final Path directory;
    private final List<SshdMachine> machines = new ArrayList<>();
    private final String password;

    private SshdHarness(Path directory, String password) {
        this.directory = directory;
        this.password = password;
    }

    /** @return null when sshd can be used (installing it if needed and possible), else why not */
    public static synchronized String unavailableReason() {
        if (!isRoot()) {
            return Files.isExecutable(Path.of(SSHD)) ? "these tests run as root (they create the local user " + USER
                    + " and log in as root)" : SSHD + " is missing and the tests do not run as root to install openssh-server";
        }
        if (!canIsolateHomes()) {
            return "cannot give sshd a mount namespace of its own (unshare --mount failed), so logins would use this machine's real homes";
        }
        if (!Files.isExecutable(Path.of(SSHD))) {
            try {
                run("apt-get", "update", "-qq");
                run("env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "openssh-server");
            } catch (IOException e) {
                return "cannot install openssh-server: " + e.getMessage();
            }
        }
        return Files.isExecutable(Path.of(SSHD)) ? null : SSHD + " is still missing after installing openssh-server";
    }

    private static boolean canIsolateHomes() {
        try {
            run("unshare", "--mount", "--propagation", "private", "true");
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static boolean isRoot() {
        try {
            return run("id", "-u").strip().equals("0");
        } catch (IOException e) {
            return false;
        }
    }

    /** Starts {@code count} machines on 127.0.0.2, 127.0.0.3, ... */
    public static SshdHarness start(int count) throws IOException {
        return start(count, 0);
    }

    /**
     * Starts {@code count} machines on 127.0.0.2, 127.0.0.3, ...; the last {@code withoutJava} of them
     * are machines without Java, as most GPU servers are: their logins get a PATH where every program
     * of this host is found but {@code java} (and the rest of the JDK).
     */
    public static SshdHarness start(int count, int withoutJava) throws IOException {
        Path directory = Files.createTempDirectory("nni-sshd");
        // the password user reads its pythonPath tools below this directory
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
        SshdHarness harness = new SshdHarness(directory, machinePassword());
        try {
            harness.prepare(count, withoutJava);
            for (SshdMachine machine : harness.machines) {
                machine.start();
            }
            // the servers never outlive the test JVM, even when a test forgets close()
            Runtime.getRuntime().addShutdownHook(new Thread(harness::close, "nni-sshd-stop"));
            return harness;
        } catch (IOException | RuntimeException e) {
            harness.close();
            throw e;
        }
    }

    private void prepare(int count, int withoutJava) throws IOException {
        Files.createDirectories(Path.of("/run/sshd")); // sshd's privilege separation directory
        ensureUser();
        List<Path> realHomes = List.of(home("root"), home(USER));
        keygen(userKey(), "");
        keygen(passphraseKey(), PASSPHRASE);
        Files.writeString(directory.resolve("authorized_keys"), Files.readString(pub(userKey())) + Files.readString(pub(passphraseKey())));
        StringBuilder knownHosts = new StringBuilder();
        StringBuilder wrongKnownHosts = new StringBuilder();
        keygen(directory.resolve("impostor_host_key"), "");
        String impostor = Files.readString(pub(directory.resolve("impostor_host_key"))).strip();
        for (int i = 0; i < count; i++) {
            String host = "127.0.0." + (2 + i);
            int port = freePort(host);
            Path machineDirectory = Files.createDirectories(directory.resolve("machine-" + host));
            Path hostKey = machineDirectory.resolve("host_key");
            keygen(hostKey, "");
            String config = String.join("\n",
                    "ListenAddress " + host + ":" + port,
                    "HostKey " + hostKey,
                    "PidFile " + machineDirectory.resolve("sshd.pid"),
                    "AuthorizedKeysFile " + directory.resolve("authorized_keys"),
                    "PasswordAuthentication yes",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "PermitRootLogin yes",
                    "UsePAM no",
                    "StrictModes no",
                    "MaxStartups 100",
                    "LogLevel ERROR",
                    "Subsystem sftp internal-sftp",
                    i >= count - withoutJava ? "SetEnv PATH=" + pathWithoutJava() : "",
                    "");
            Path configFile = machineDirectory.resolve("sshd_config");
            Files.writeString(configFile, config);
            String key = Files.readString(pub(hostKey)).strip();
            String keyTypeAndValue = key.substring(0, ordinalIndexOf(key, ' ', 2) < 0 ? key.length() : ordinalIndexOf(key, ' ', 2));
            knownHosts.append('[').append(host).append("]:").append(port).append(' ').append(keyTypeAndValue).append('\n');
            String impostorKey = impostor.substring(0, ordinalIndexOf(impostor, ' ', 2) < 0 ? impostor.length() : ordinalIndexOf(impostor, ' ', 2));
            wrongKnownHosts.append('[').append(host).append("]:").append(port).append(' ').append(impostorKey).append('\n');
            machines.add(new SshdMachine(host, port, sshdCommand(configFile, realHomes, machineDirectory.resolve("homes")),
                    machineDirectory.resolve("sshd.log"), i < count - withoutJava));
        }
        Files.writeString(knownHosts(), knownHosts);
        Files.writeString(wrongKnownHosts(), wrongKnownHosts);
    }

    /** @return the home folder {@code /etc/passwd} gives {@code user} */
    private static Path home(String user) throws IOException {
        String[] entry = run("getent", "passwd", user).strip().split(":");
        if (entry.length < 6 || entry[5].isBlank()) {
            throw new IOException("no home folder for " + user + " in the passwd database");
        }
        return Path.of(entry[5]);
    }

    /**
     * @return the command starting sshd with {@code configFile} in a mount namespace of its own, where
     *         each of {@code realHomes} is covered by a new empty folder below {@code homes}, owned
     *         as the real one is
     */
    private static List<String> sshdCommand(Path configFile, List<Path> realHomes, Path homes) throws IOException {
        StringBuilder script = new StringBuilder();
        List<String> arguments = new ArrayList<>();
        for (Path real : realHomes) {
            Path own = Files.createDirectories(homes.resolve(real.getFileName().toString()));
            Files.setPosixFilePermissions(own, PosixFilePermissions.fromString("rwx------"));
            Files.setOwner(own, Files.getOwner(real));
            arguments.add(own.toString());
            arguments.add(real.toString());
            script.append("mount --bind \"$").append(arguments.size() - 1).append("\" \"$").append(arguments.size()).append("\" && ");
        }
        script.append("exec ").append(SSHD).append(" -D -e -f \"$").append(arguments.size() + 1).append('"');
        arguments.add(configFile.toString());
        List<String> command = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c", script.toString(), "sh"));
        command.addAll(arguments);
        return command;
    }

    /**
     * @return a PATH for logins without Java: a directory linking every program of /usr/bin and /bin but
     *         the JDK's, then /usr/sbin and /sbin
     */
    private String pathWithoutJava() throws IOException {
        Path bin = directory.resolve("bin-without-java");
        if (!Files.isDirectory(bin)) {
            Files.createDirectories(bin);
            Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwxr-xr-x"));
            for (String folder : List.of("/usr/bin", "/bin")) {
                try (var programs = Files.list(Path.of(folder))) {
                    for (Path program : (Iterable<Path>) programs::iterator) {
                        String name = program.getFileName().toString();
                        Path link = bin.resolve(name);
                        if (Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS) || isJdk(program)) {
                            continue;
                        }
                        Files.createSymbolicLink(link, program);
                    }
                }
            }
        }
        return bin + ":/usr/sbin:/sbin";
    }

    private static boolean isJdk(Path program) {
        if (program.getFileName().toString().startsWith("java")) {
            return true;
        }
        try {
            return program.toRealPath().toString().contains("/jvm/");
        } catch (IOException dangling) {
            return false;
        }
    }

    private static int ordinalIndexOf(String text, char c, int n) {
        int index = -1;
        for (int i = 0; i < n; i++) {
            index = text.indexOf(c, index + 1);
            if (index < 0) {
                return -1;
            }
        }
        return index;
    }

    /**
     * The password of {@link #USER} on this machine: read from {@value #PASSWORD_FILE}, or generated
     * and published there with a hard link, which fails when another run got there first.
     */
    private static String machinePassword() throws IOException {
        Path file = Path.of(PASSWORD_FILE);
        if (!Files.exists(file)) {
            Files.createDirectories(file.getParent(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            byte[] random = new byte[12];
            new SecureRandom().nextBytes(random);
            Path draft = Files.createTempFile(file.getParent(), "password", ".draft");
            try {
                Files.writeString(draft, "pw-" + HexFormat.of().formatHex(random));
                Files.createLink(file, draft);
            } catch (java.nio.file.FileAlreadyExistsException another) {
                // another run published its password first: use that one
            } finally {
                Files.deleteIfExists(draft);
            }
        }
        return Files.readString(file).strip();
    }

    /** Creates {@link #USER} if missing and sets the machine's password (idempotent). */
    private void ensureUser() throws IOException {
        try {
            run("id", USER);
        } catch (IOException missing) {
            run("useradd", "-m", "-s", "/bin/bash", USER);
        }
        ProcessBuilder builder = new ProcessBuilder("chpasswd").redirectErrorStream(true);
        Process process = builder.start();
        try (var stdin = process.getOutputStream()) {
            stdin.write((USER + ":" + password + "\n").getBytes(StandardCharsets.UTF_8));
        }
        waitFor(process, "chpasswd");
    }

    private static void keygen(Path key, String passphrase) throws IOException {
        run("ssh-keygen", "-q", "-t", "ed25519", "-N", passphrase, "-C", "nni-test", "-f", key.toString());
    }

    private static Path pub(Path key) {
        return key.resolveSibling(key.getFileName() + ".pub");
    }

    private static int freePort(String host) throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(host))) {
            return socket.getLocalPort();
        }
    }

    private static String run(String... command) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        return waitFor(process, String.join(" ", command));
    }

    private static String waitFor(Process process, String what) throws IOException {
        try {
            byte[] out = process.getInputStream().readAllBytes();
            if (!process.waitFor(300, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException(what + " did not finish");
            }
            String text = new String(out, StandardCharsets.UTF_8);
            if (process.exitValue() != 0) {
                throw new IOException(what + " failed with exit code " + process.exitValue() + ": " + text.strip());
            }
            return text;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while running " + what);
        }
    }

    public List<SshdMachine> machines() {
        return List.copyOf(machines);
    }

    public Path directory() {
        return directory;
    }

    /** @return a known_hosts file with every machine's host key */
    public Path knownHosts() {
        return directory.resolve("known_hosts");
    }

    /** @return a known_hosts file that lists another key for every machine (a man in the middle) */
    public Path wrongKnownHosts() {
        return directory.resolve("known_hosts.wrong");
    }

    /** @return root's private key, without passphrase */
    public Path userKey() {
        return directory.resolve("id_root");
    }

    /** @return another private key of root, protected by {@link #PASSPHRASE} */
    public Path passphraseKey() {
        return directory.resolve("id_root_passphrase");
    }

    /** @return {@link #USER}'s password on this machine */
    public String password() {
        return password;
    }

    /** @return a new directory the password user can read, for tools put on PATH through pythonPath */
    public Path toolsDirectory(String name) throws IOException {
        Path tools = Files.createDirectories(directory.resolve(name));
        Files.setPosixFilePermissions(tools, PosixFilePermissions.fromString("rwxr-xr-x"));
        return tools;
    }

    /** Stops the servers and deletes the directory (keys, configurations, what tests put there). */
    @Override
    public synchronized void close() {
        machines.forEach(SshdMachine::stop);
        endProcessesStartedHere();
        removePerfDataDirectory();
        if (!Files.exists(directory)) {
            return;
        }
        try (var walk = Files.walk(directory)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException | java.io.UncheckedIOException e) {
            // best effort: a temporary directory
        }
    }

    /**
     * Every JVM {@link #USER} starts over ssh (the keeper probe's {@code java -version}, the Java
     * keeper) makes HotSpot's {@code /tmp/hsperfdata_nnitest}, outside the harness's directory, and
     * leaves it behind empty. Removed only when empty: a JVM of that user still running keeps it.
     */
    private static void removePerfDataDirectory() {
        try {
            Files.deleteIfExists(Path.of("/tmp", "hsperfdata_" + USER));
        } catch (IOException e) {
            // not empty (a JVM of the user still runs) or not ours to remove: leave it
        }
    }

    /**
     * Ends what the tests started on these machines and left running (keepers of detached sessions
     * wait an hour for a manager that will not come back): every process whose command line or
     * working directory is in this harness's directory. SIGTERM first, so that a keeper ends its
     * trials; SIGKILL after 10 s.
     */
    private void endProcessesStartedHere() {
        String root = directory.toString();
        List<ProcessHandle> left = ProcessHandle.allProcesses().filter(process -> process.pid() != ProcessHandle.current().pid())
                .filter(process -> process.info().commandLine().map(line -> line.contains(root)).orElse(false)
                        || workingDirectory(process).startsWith(root))
                .toList();
        left.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10);
        for (ProcessHandle process : left) {
            try {
                process.onExit().get(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    private static String workingDirectory(ProcessHandle process) {
        try {
            return Files.readSymbolicLink(Path.of("/proc", Long.toString(process.pid()), "cwd")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return "";
        }
    }
}
