package nni.keeper.internal.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.http.HttpError;

/**
 * The manager's side of one keeper's channel folder (the file transport): the keeper protocol of the
 * HTTP routes, carried by files on a storage the manager and the worker share.
 *
 * <pre>
 * hello.json                    keeper → manager: the handshake (with the keeper's token and a nonce), mode 0600
 * welcome.json                  manager → keeper: the answer, the nonce echoed; or {"status", "error"}
 * reports/&lt;first&gt;-&lt;last&gt;.json  keeper → manager: {"reports": [...]}, sequences first..last (20 digits each)
 * acked                         manager → keeper: the highest sequence applied (durable); the report files
 *                               up to it are deleted (by both sides), and the keeper sends again what stays
 *                               unacknowledged
 * commands/&lt;id&gt;.json            manager → keeper: one numbered command (new-trial, kill, send-parameter, log-tail, stop)
 * commands.done                 keeper → manager: the highest command id handled, rewritten at each look for
 *                               commands (the keeper's sign of life); the manager deletes the commands up to it
 * gone.json                     manager → keeper: {"error"}: refused for good (session gone)
 * </pre>
 *
 * Every file is written under a temporary name ({@code .<name>.tmp}) and renamed, and readers take
 * only the final names. A report file that cannot be parsed (a storage that showed the rename before
 * the data, a writer that died) is not applied in part: it is read again at the next look, and the
 * keeper writes its reports again when they stay unacknowledged. Reports apply in sequence order;
 * a report file whose first sequence leaves a gap waits for the file that fills it.
 *
 * <p>{@link #scan()} runs on the share's watcher thread only; {@link #command} and {@link #close}
 * may come from any thread.
 */
final class ChannelFolder {

    private static final Logger LOG = LoggerFactory.getLogger(ChannelFolder.class);
    private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
    private static final Pattern REPORT_FILE = Pattern.compile("(\\d{20})-(\\d{20})\\.json");
    private static final Pattern COMMAND_FILE = Pattern.compile("(\\d{20})\\.json");

    private final KeeperLink link;
    private final KeeperExchange exchange;
    private final Path folder;
    private final Path reports;
    private final Path commands;
    /** The nonce of the last hello answered. */
    private Object answered;
    /** Whether reports are taken: after a handshake accepted here, or at once for a keeper taken back after a restart. */
    private volatile boolean accepted;
    private long ackWritten = -1;
    private long commandsDone;
    private java.nio.file.attribute.FileTime doneModified;
    private String lastProblem;
    private volatile boolean closed;

    /**
     * @param restored the keeper was started by a runtime before a restart (its link restored): its
     *                 files stay, and its reports are taken without a new handshake
     */
    ChannelFolder(KeeperLink link, KeeperExchange exchange, Path folder, boolean restored) throws IOException {
        this.link = link;
        this.exchange = exchange;
        this.folder = folder;
        this.reports = folder.resolve("reports");
        this.commands = folder.resolve("commands");
        if (!restored && Files.isDirectory(folder)) {
            clear(folder); // a keeper of this id before (a trial submitted again): its files mean nothing now
        }
        // created here, as NNI does on DLC: folders a job creates may not be writable from the manager's machine
        Files.createDirectories(reports);
        Files.createDirectories(commands);
        this.accepted = restored;
        if (restored) {
            long acked = readNumber(folder.resolve("acked"));
            synchronized (link.reportLock()) {
                if (acked > link.applied()) {
                    // written after those reports were durable; the link file may have been flushed before them
                    link.applied(acked);
                }
            }
        }
    }

    Path folder() {
        return folder;
    }

    KeeperLink link() {
        return link;
    }

    /**
     * Looks at the folder: answers a new hello, applies new reports in order and acknowledges them,
     * drops the commands the keeper has handled.
     *
     * @return false when something must be looked at again later (a torn file, a detached session,
     *         a failing store), true when all is done
     */
    boolean scan() {
        if (closed) {
            return true;
        }
        boolean done = true;
        try {
            done &= hello();
            if (accepted) {
                done &= reports();
                dropHandledCommands();
            }
            if (done) {
                lastProblem = null;
            }
        } catch (IOException e) {
            problem("cannot read or write " + folder + ": " + e.getMessage());
            done = false;
        }
        return done;
    }

    private boolean hello() throws IOException {
        Path file = folder.resolve("hello.json");
        Map<String, Object> hello = readJson(file);
        if (hello == null) {
            return !Files.exists(file); // absent: nothing to do; unreadable: a torn one, look again
        }
        Object nonce = hello.get("nonce");
        if (nonce == null || nonce.equals(answered)) {
            return true;
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        Object token = hello.get("token");
        if (!link.accepts(token instanceof String text ? text : null)) {
            LOG.warn("refused the hello of keeper {} of experiment {} in {}: {}", link.keeperId(), link.experimentId(), folder,
                    token == null ? "no token" : "wrong token");
            answer.put("status", 401);
            answer.put("error", "unknown keeper or wrong token for keeper " + link.keeperId());
        } else {
            link.seen();
            try {
                answer.putAll(exchange.handshake(link, hello));
                accepted = true;
            } catch (HttpError e) {
                if (e.status() == 503) {
                    problem(e.getMessage());
                    return false; // the session is detached: the keeper waits for a later one
                }
                answer.put("status", e.status());
                answer.put("error", e.getMessage());
            }
        }
        answer.put("nonce", nonce);
        write(folder.resolve("welcome.json"), JSON.writeValueAsBytes(answer), false);
        answered = nonce;
        return true;
    }

    private boolean reports() throws IOException {
        List<long[]> files = new ArrayList<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(reports)) {
            for (Path entry : entries) {
                Matcher m = REPORT_FILE.matcher(entry.getFileName().toString());
                if (m.matches()) {
                    files.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))});
                }
            }
        }
        files.sort(Comparator.<long[]>comparingLong(f -> f[0]).thenComparingLong(f -> f[1]));
        boolean done = true;
        long applied;
        synchronized (link.reportLock()) {
            applied = link.applied();
        }
        for (long[] range : files) {
            if (range[1] <= applied) {
                continue; // acknowledged already: deleted below
            }
            if (range[0] > applied + 1) {
                break; // a gap: reports apply in order, so this one waits for the file before it
            }
            Path file = reports.resolve(String.format("%020d-%020d.json", range[0], range[1]));
            Map<String, Object> body = readJson(file);
            if (body == null) {
                if (Files.exists(file)) {
                    problem("report file " + file + " is not complete JSON yet (torn or half written); it is read again later");
                    done = false;
                }
                continue; // another file may cover the same reports; otherwise the gap check stops us
            }
            try {
                applied = exchange.reports(link, body);
                link.seen();
            } catch (HttpError e) {
                problem("report file " + file + " not applied now: " + e.getMessage());
                return false;
            } catch (RuntimeException e) {
                problem("report file " + file + " not applied now: " + e.getMessage());
                return false;
            }
        }
        if (applied != ackWritten && applied > 0) {
            write(folder.resolve("acked"), Long.toString(applied).getBytes(StandardCharsets.US_ASCII), true);
            ackWritten = applied;
        }
        // what is acknowledged is deleted here too: a keeper stopped right after its last acknowledgement cannot
        for (long[] range : files) {
            if (range[1] <= applied) {
                Files.deleteIfExists(reports.resolve(String.format("%020d-%020d.json", range[0], range[1])));
            }
        }
        return done;
    }

    private void dropHandledCommands() throws IOException {
        Path doneFile = folder.resolve("commands.done");
        try {
            java.nio.file.attribute.FileTime modified = Files.getLastModifiedTime(doneFile);
            if (!modified.equals(doneModified)) {
                // the keeper rewrites it at each look for commands: it is alive (what a command poll says over HTTP)
                doneModified = modified;
                link.seen();
            }
        } catch (NoSuchFileException notYet) {
            return;
        }
        long done = readNumber(doneFile);
        if (done <= commandsDone) {
            return;
        }
        commandsDone = done;
        link.commandsAfter(done, 0, null);
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(commands)) {
            for (Path entry : entries) {
                Matcher m = COMMAND_FILE.matcher(entry.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(1)) <= done) {
                    Files.deleteIfExists(entry);
                }
            }
        }
    }

    /** Writes one numbered command for the keeper. */
    void command(Map<String, Object> command) {
        if (closed) {
            return;
        }
        long id = ((Number) command.get("id")).longValue();
        try {
            write(commands.resolve(String.format("%020d.json", id)), JSON.writeValueAsBytes(command), false);
        } catch (IOException e) {
            LOG.error("keeper {} of experiment {}: cannot write command {} ({}) to {}: {}", link.keeperId(), link.experimentId(), id,
                    command.get("type"), commands, e.getMessage());
        }
    }

    /** Stops reading the folder; when the keeper is refused from now on, tells it so ({@code gone.json}). */
    void close(boolean refused) {
        if (closed) {
            return;
        }
        closed = true;
        deleteAcknowledgedReports();
        if (refused && Files.isDirectory(folder)) {
            try {
                write(folder.resolve("gone.json"), JSON.writeValueAsBytes(Map.of("status", 410, "error",
                        "the manager ended the session of keeper " + link.keeperId() + " of experiment " + link.experimentId())), false);
            } catch (IOException e) {
                LOG.debug("cannot tell keeper {} in {} that it is gone: {}", link.keeperId(), folder, e.getMessage());
            }
        }
    }

    /**
     * Deletes the report files whose reports are all applied. A keeper that found no acknowledgement
     * for a while writes its unacknowledged reports again; when the manager acknowledged them in the
     * meantime and the session ends at once (its last trial's end was the last report), no later
     * look would delete that copy.
     */
    private void deleteAcknowledgedReports() {
        // not under the report lock: close is called with the session's lock held (an environment that
        // ended, a session that closes), and the watcher applying this keeper's reports holds the report
        // lock while it waits for the session's; a batch being applied now is deleted by that look
        long applied = link.appliedSoFar();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(reports)) {
            for (Path entry : entries) {
                Matcher m = REPORT_FILE.matcher(entry.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(2)) <= applied) {
                    Files.deleteIfExists(entry);
                }
            }
        } catch (NoSuchFileException gone) {
            // the folder went with its experiment
        } catch (IOException e) {
            LOG.debug("cannot clear the acknowledged reports of keeper {} in {}: {}", link.keeperId(), reports, e.getMessage());
        }
    }

    boolean closed() {
        return closed;
    }

    /** Logs a problem once until it changes or goes away (the watcher looks again and again). */
    private void problem(String message) {
        if (!message.equals(lastProblem)) {
            LOG.info("keeper {} of experiment {}: {}", link.keeperId(), link.experimentId(), message);
            lastProblem = message;
        }
    }

    /** @return the JSON object in {@code file}, or null when it is absent or not (yet) a whole JSON object */
    @SuppressWarnings("unchecked")
    private static Map<String, Object> readJson(Path file) throws IOException {
        byte[] bytes;
        try {
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException gone) {
            return null;
        }
        try {
            Object value = JSON.readValue(bytes, Object.class);
            return value instanceof Map ? (Map<String, Object>) value : null;
        } catch (IOException torn) {
            return null;
        }
    }

    /** @return the whole number in {@code file}, or 0 when it is absent or torn */
    private static long readNumber(Path file) throws IOException {
        try {
            return Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
        } catch (NoSuchFileException | NumberFormatException absentOrTorn) {
            return 0;
        }
    }

    /** Writes {@code target} under a temporary name and renames it, so that no reader sees half of it. */
    static void write(Path target, byte[] data, boolean durable) throws IOException {
        Path temporary = target.resolveSibling("." + target.getFileName() + ".tmp");
        try (FileChannel out = FileChannel.open(temporary, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            out.write(java.nio.ByteBuffer.wrap(data));
            if (durable) {
                out.force(true);
            }
        }
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void clear(Path folder) throws IOException {
        try (var walk = Files.walk(folder)) {
            for (Path path : walk.sorted(Comparator.reverseOrder()).toList()) {
                if (!path.equals(folder)) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }
}
