package nni.trialkeeper;

import static java.nio.file.StandardWatchEventKinds.ENTRY_CREATE;
import static java.nio.file.StandardWatchEventKinds.ENTRY_MODIFY;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The keeper's side of the file transport: the protocol of the HTTP routes carried by files in a
 * channel folder that the manager created on a storage both see ({@code --channel DIR}), for workers
 * that cannot open a connection to the manager (PAI-DLC jobs on the NAS).
 *
 * <pre>
 * hello.json / welcome.json      the handshake (the hello carries the token and a nonce the answer echoes; mode 0600)
 * reports/&lt;first&gt;-&lt;last&gt;.json   report batches, sequences first..last; deleted here once acknowledged
 * acked                          the highest sequence the manager has durably
 * commands/&lt;id&gt;.json             the manager's commands; commands.done says which are handled (rewritten at
 *                                each look for commands: the keeper's sign of life)
 * gone.json                      the manager refuses this keeper from now on
 * </pre>
 *
 * Every file is written under a temporary name and renamed. Reports stay in the spool until
 * acknowledged; a batch whose acknowledgement does not come is written again, as one file from the
 * first unacknowledged report on, after a pause that doubles from 2 s to a minute (a manager that
 * restarts, a file the storage showed torn): the manager applies each sequence once, whatever file
 * brings it. Waiting is event-driven (inotify through {@link WatchService}) where the file system
 * notifies; on network file systems (NFS, SMB, FUSE: the manager writes from another machine, which
 * inotify never reports) the folder is looked at every {@link #POLL_MILLIS}.
 */
final class FileChannel implements ManagerLink {

    static final long POLL_MILLIS = 200;
    private static final long HANDSHAKE_WAIT_MILLIS = 15_000;
    private static final long ACK_WAIT_MILLIS = 10_000;
    private static final long FIRST_RESEND_MILLIS = 2_000;
    private static final long LAST_RESEND_MILLIS = 60_000;
    private static final Set<String> CANNOT_NOTIFY = Set.of("nfs", "nfs4", "cifs", "smb", "smb2", "smb3", "smbfs", "9p", "ceph",
            "glusterfs", "lustre", "afs", "gpfs", "beegfs", "ossfs", "cpfs", "virtiofs");
    private static final Pattern REPORT_FILE = Pattern.compile("(\\d{20})-(\\d{20})\\.json");
    private static final Pattern COMMAND_FILE = Pattern.compile("(\\d{20})\\.json");
    private static final Pattern SEQ = Pattern.compile("^\\{\"seq\":(\\d+)");

    private final Path folder;
    private final Path reports;
    private final Path commands;
    private final String token;
    /** Wakes the handshake and the sender (the folder); the command loop has its own (the folder and commands/). */
    private final Watch folderWatch;
    private final Watch commandWatch;
    /** The highest sequence written to a report file by this keeper. */
    private long written;
    private long lastAcked = -1;
    private long ackedSince = System.currentTimeMillis();
    private long resendAfter = FIRST_RESEND_MILLIS;

    FileChannel(Path folder, String token) throws IOException {
        this.folder = folder;
        this.reports = folder.resolve("reports");
        this.commands = folder.resolve("commands");
        this.token = token;
        if (!Files.isDirectory(reports) || !Files.isDirectory(commands)) {
            throw new NoSuchFileException(folder + " is not a keeper channel folder (no reports/ and commands/ made by the manager)");
        }
        String type = Files.getFileStore(folder).type().toLowerCase(Locale.ROOT);
        boolean notifies = !(CANNOT_NOTIFY.contains(type) || type.startsWith("fuse"));
        this.folderWatch = new Watch(notifies, folder);
        this.commandWatch = new Watch(notifies, folder, commands);
    }

    @Override
    public String where() {
        return "manager's channel " + folder;
    }

    @Override
    public Map<String, Object> handshake(Map<String, Object> hello) throws IOException, InterruptedException {
        refusedIfGone();
        Path welcome = folder.resolve("welcome.json");
        Files.deleteIfExists(welcome);
        String nonce = Long.toHexString(new SecureRandom().nextLong());
        Map<String, Object> signed = new LinkedHashMap<>(hello);
        signed.put("token", token);
        signed.put("nonce", nonce);
        write(folder.resolve("hello.json"), Json.write(signed), true);
        Map<String, Object>[] answer = new Map[1];
        boolean answered = folderWatch.await(() -> {
            Map<String, Object> read = readJson(welcome);
            if (read != null && nonce.equals(read.get("nonce"))) {
                answer[0] = read;
                return true;
            }
            return false;
        }, HANDSHAKE_WAIT_MILLIS);
        if (!answered) {
            refusedIfGone();
            throw new IOException("no answer in " + welcome + " within " + HANDSHAKE_WAIT_MILLIS / 1000 + " s");
        }
        if (answer[0].get("error") instanceof String error) {
            long status = answer[0].get("status") instanceof Long s ? s : 0;
            if (status == 401 || status == 409 || status == 410) {
                throw new ManagerClient.Refused((int) status, error);
            }
            throw new ManagerClient.Unusable((int) status, "the manager answered " + status + ": " + error);
        }
        answer[0].remove("nonce");
        return answer[0];
    }

    @Override
    public long sendReports(List<String> batch, long lastSeq) throws IOException, InterruptedException {
        refusedIfGone();
        long acked = acked();
        if (acked < lastSeq) {
            long now = System.currentTimeMillis();
            if (written > acked && now - ackedSince >= resendAfter) {
                // no acknowledgement for a while: write everything unacknowledged again, as one file
                deleteReportFiles(Long.MAX_VALUE);
                written = acked;
                resendAfter = Math.min(LAST_RESEND_MILLIS, resendAfter * 2);
                ackedSince = now;
            }
            List<String> fresh = new ArrayList<>();
            long first = 0;
            for (String report : batch) {
                long seq = seqOf(report);
                if (seq > written && seq > acked) {
                    first = first == 0 ? seq : first;
                    fresh.add(report);
                }
            }
            if (!fresh.isEmpty()) {
                write(reports.resolve(String.format("%020d-%020d.json", first, lastSeq)),
                        "{\"reports\":[" + String.join(",", fresh) + "]}", false);
                written = lastSeq;
            }
            folderWatch.await(() -> acked() >= lastSeq || Files.exists(folder.resolve("gone.json")), ACK_WAIT_MILLIS);
            acked = acked();
        }
        deleteReportFiles(acked);
        if (acked < lastSeq) {
            refusedIfGone(); // acknowledged reports count even when the session ended right after
            throw new IOException("reports up to " + lastSeq + " are in " + reports + "; the manager has acknowledged only "
                    + Math.max(0, acked) + " so far");
        }
        return lastSeq;
    }

    @Override
    public List<Map<String, Object>> commands(long after, long waitMillis) throws IOException, InterruptedException {
        // rewritten at every look, also unchanged: the manager takes it as this keeper's sign of life
        write(folder.resolve("commands.done"), Long.toString(after), false);
        List<Map<String, Object>> found = new ArrayList<>();
        commandWatch.await(() -> {
            found.clear();
            found.addAll(newCommands(after));
            return !found.isEmpty() || Files.exists(folder.resolve("gone.json"));
        }, waitMillis);
        if (found.isEmpty()) {
            refusedIfGone(); // the commands written before the session ended (a stop) are handled first
        }
        return found;
    }

    /** @return the commands after {@code after} in id order, up to the first that cannot be read whole yet */
    private List<Map<String, Object>> newCommands(long after) {
        TreeMap<Long, Path> files = new TreeMap<>();
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(commands)) {
            for (Path entry : entries) {
                Matcher m = COMMAND_FILE.matcher(entry.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(1)) > after) {
                    files.put(Long.parseLong(m.group(1)), entry);
                }
            }
        } catch (IOException e) {
            return List.of();
        }
        List<Map<String, Object>> found = new ArrayList<>();
        for (Path file : files.values()) {
            Map<String, Object> command = readJson(file);
            if (command == null || !(command.get("id") instanceof Long) || !(command.get("type") instanceof String)) {
                break; // torn: commands are handled in order, so the rest waits for it
            }
            found.add(command);
        }
        return found;
    }

    /** @return the manager's acknowledged sequence (0 before the first) */
    private long acked() {
        long acked;
        try {
            acked = Long.parseLong(Files.readString(folder.resolve("acked"), StandardCharsets.US_ASCII).strip());
        } catch (IOException | NumberFormatException absentOrTorn) {
            acked = Math.max(0, lastAcked);
        }
        if (acked != lastAcked) {
            lastAcked = acked;
            ackedSince = System.currentTimeMillis();
            resendAfter = FIRST_RESEND_MILLIS;
        }
        return acked;
    }

    /** Deletes the report files whose reports are all acknowledged up to {@code upTo}. */
    private void deleteReportFiles(long upTo) throws IOException {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(reports)) {
            for (Path entry : entries) {
                Matcher m = REPORT_FILE.matcher(entry.getFileName().toString());
                if (m.matches() && Long.parseLong(m.group(2)) <= upTo) {
                    Files.deleteIfExists(entry);
                }
            }
        }
    }

    /**
     * A session that ends writes its keepers' stop, then {@code gone.json}: the keeper may see the
     * second before it takes the first, and the refusal is then the end it was asked for.
     */
    private void refusedIfGone() throws ManagerClient.Refused {
        Map<String, Object> gone = readJson(folder.resolve("gone.json"));
        if (gone != null) {
            throw new ManagerClient.Refused(410, String.valueOf(gone.get("error")), stopWritten());
        }
    }

    /** @return whether a stop is among the command files, taken or not (a torn file ahead of it does not hide it) */
    private boolean stopWritten() {
        try (DirectoryStream<Path> entries = Files.newDirectoryStream(commands)) {
            for (Path entry : entries) {
                if (COMMAND_FILE.matcher(entry.getFileName().toString()).matches()) {
                    Map<String, Object> command = readJson(entry);
                    if (command != null && "stop".equals(command.get("type"))) {
                        return true;
                    }
                }
            }
        } catch (IOException e) {
            return false;
        }
        return false;
    }

    private static long seqOf(String report) {
        Matcher m = SEQ.matcher(report);
        if (!m.find()) {
            throw new IllegalStateException("a spooled report without its leading sequence: " + report);
        }
        return Long.parseLong(m.group(1));
    }

    private static Map<String, Object> readJson(Path file) {
        try {
            return Json.parseObject(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException | IllegalArgumentException absentOrTorn) {
            return null;
        }
    }

    /** Writes {@code target} under a temporary name and renames it, so that the manager never reads half of it. */
    private static void write(Path target, String text, boolean secret) throws IOException {
        Path temporary = target.resolveSibling("." + target.getFileName() + ".tmp");
        Files.deleteIfExists(temporary);
        if (secret) {
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        Files.writeString(temporary, text, StandardCharsets.UTF_8);
        Files.move(temporary, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    /** Waits for a condition on files: woken by inotify where the file system notifies, else looked at every {@link #POLL_MILLIS}. */
    private static final class Watch {
        private final WatchService service;

        Watch(boolean notifies, Path... folders) throws IOException {
            if (notifies) {
                service = folders[0].getFileSystem().newWatchService();
                for (Path watched : folders) {
                    watched.register(service, ENTRY_CREATE, ENTRY_MODIFY);
                }
            } else {
                service = null;
            }
        }

        interface Condition {
            boolean holds() throws IOException;
        }

        /** @return whether the condition held within the timeout */
        boolean await(Condition condition, long timeoutMillis) throws IOException, InterruptedException {
            long deadline = System.currentTimeMillis() + timeoutMillis;
            while (true) {
                if (condition.holds()) {
                    return true;
                }
                long left = deadline - System.currentTimeMillis();
                if (left <= 0) {
                    return false;
                }
                if (service == null) {
                    Thread.sleep(Math.min(left, POLL_MILLIS));
                } else {
                    WatchKey key = service.poll(left, TimeUnit.MILLISECONDS);
                    while (key != null) {
                        key.pollEvents();
                        key.reset();
                        key = service.poll();
                    }
                }
            }
        }
    }
}
