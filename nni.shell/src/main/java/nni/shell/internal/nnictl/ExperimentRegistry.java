package nni.shell.internal.nnictl;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectWriter;

/**
 * NNI's registry of experiments, the file {@code .experiment} in the experiments root
 * ({@code ~/nni-experiments/.experiment}): a JSON object from experiment id to an entry
 * {@code {id, port, startTime, endTime, status, platform, experimentName, tag, pid, webuiUrl, logDir,
 * prefixUrl}}. nnictl lists experiments from it, finds an experiment's port and pid in it, and
 * stops one by killing that pid; NNI's Python client looks its pid up in it.
 *
 * <p>Read and written as NNI 3.0 does ({@code nni/tools/nnictl/config_utils.py},
 * {@code ts/nni_manager/extensions/experiments_manager}): JSON indented by 4 spaces, read-modify-write
 * under NNI's lock. That lock is a file {@code .experiment.lock.<pid>}, created exclusively when no
 * other {@code .experiment.lock.*} younger than 2 seconds exists, and deleted after the write; older
 * lock files are stale and ignored. The file is replaced atomically, so a reader that skips the lock
 * still sees a whole file. Thread-safe.
 */
public final class ExperimentRegistry {

    public static final String FILE = ".experiment";
    /** NNI's {@code endTime} of an experiment that has not ended, as its launcher writes it. */
    public static final String NOT_ENDED = "N/A";
    /** Lock files older than this are left over by a killed process (NNI: 2 s, in Python and in nni_manager). */
    private static final long STALE_MILLIS = 2000;
    private static final long RETRY_MILLIS = 50;
    private static final long PATIENCE_MILLIS = 10_000;

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<LinkedHashMap<String, Object>> OBJECT = new TypeReference<>() { };
    /** Python's {@code json.dump(indent=4)} and JavaScript's {@code JSON.stringify(value, null, 4)}. */
    private static final ObjectWriter WRITER = JSON.writer(new DefaultPrettyPrinter(Separators.createDefaultInstance()
            .withObjectFieldValueSpacing(Separators.Spacing.AFTER).withObjectEmptySeparator("").withArrayEmptySeparator(""))
            .withObjectIndenter(new DefaultIndenter("    ", "\n")).withArrayIndenter(new DefaultIndenter("    ", "\n")));

    private final Path file;
    private final String lockPrefix;
    private final Path ownLock;

    /** @param directory the experiments root that holds (or will hold) {@value #FILE} */
    public ExperimentRegistry(Path directory) {
        this.file = directory.resolve(FILE);
        this.lockPrefix = FILE + ".lock.";
        this.ownLock = directory.resolve(lockPrefix + ProcessHandle.current().pid());
    }

    public Path file() {
        return file;
    }

    /**
     * An entry as NNI's launcher writes it ({@code Experiments.add_experiment}), fields in its order.
     *
     * @param endTime   null while the experiment has not ended ({@value #NOT_ENDED})
     * @param logDir    the experiments directory the experiment's folder is in (not that folder)
     * @param prefixUrl the URL prefix under which the experiment's REST API is served, or null
     */
    public static Map<String, Object> entry(String id, Integer port, long startTime, Long endTime, String status,
            String platform, String experimentName, List<String> tag, long pid, String logDir, String prefixUrl) {
        Map<String, Object> entry = new LinkedHashMap<>();
        entry.put("id", id);
        entry.put("port", port);
        entry.put("startTime", startTime);
        entry.put("endTime", endTime == null ? NOT_ENDED : endTime);
        entry.put("status", status);
        entry.put("platform", platform);
        entry.put("experimentName", experimentName);
        entry.put("tag", tag);
        entry.put("pid", pid);
        entry.put("webuiUrl", List.of());
        entry.put("logDir", logDir);
        entry.put("prefixUrl", prefixUrl);
        return entry;
    }

    /** @return every entry, by experiment id (an unreadable or missing file reads as empty, as in NNI) */
    public Map<String, Map<String, Object>> read() throws IOException, InterruptedException {
        return update(entries -> new LinkedHashMap<>(entries), false);
    }

    /**
     * Reads the entries, lets {@code change} modify them, and writes them back, all under NNI's lock.
     *
     * @return what {@code change} returns
     */
    public <T> T update(Function<Map<String, Map<String, Object>>, T> change) throws IOException, InterruptedException {
        return update(change, true);
    }

    private synchronized <T> T update(Function<Map<String, Map<String, Object>>, T> change, boolean write)
            throws IOException, InterruptedException {
        Files.createDirectories(file.getParent());
        lock();
        try {
            Map<String, Map<String, Object>> entries = load();
            T result = change.apply(entries);
            if (write) {
                Path temporary = file.resolveSibling(FILE + ".tmp." + ProcessHandle.current().pid());
                Files.write(temporary, WRITER.writeValueAsBytes(entries));
                Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            }
            return result;
        } finally {
            Files.deleteIfExists(ownLock);
        }
    }

    private Map<String, Map<String, Object>> load() throws IOException {
        Map<String, Map<String, Object>> entries = new LinkedHashMap<>();
        byte[] content;
        try {
            content = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return entries;
        }
        Map<String, Object> all;
        try {
            all = JSON.readValue(content, OBJECT);
        } catch (JsonProcessingException e) {
            return entries; // NNI: a file that is not JSON is an empty registry
        }
        for (Map.Entry<String, Object> each : all == null ? Map.<String, Object>of().entrySet() : all.entrySet()) {
            if (each.getValue() instanceof Map<?, ?> map) {
                entries.put(each.getKey(), JSON.convertValue(map, OBJECT));
            }
        }
        return entries;
    }

    /**
     * Takes NNI's lock: waits while another process's lock file is fresh, then creates ours. Should
     * two processes create theirs at once, the one that then sees the other's backs off.
     */
    private void lock() throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(PATIENCE_MILLIS);
        while (true) {
            if (!otherFreshLock()) {
                try {
                    Files.createFile(ownLock);
                } catch (FileAlreadyExistsException e) {
                    Files.setLastModifiedTime(ownLock, FileTime.fromMillis(System.currentTimeMillis()));
                }
                if (!otherFreshLock()) {
                    return;
                }
                Files.deleteIfExists(ownLock);
            }
            if (System.nanoTime() > deadline) {
                throw new IOException(file + " stays locked by another process (" + lockPrefix + "* files younger than "
                        + STALE_MILLIS / 1000 + " s)");
            }
            TimeUnit.MILLISECONDS.sleep(RETRY_MILLIS + ThreadLocalRandom.current().nextLong(RETRY_MILLIS));
        }
    }

    private boolean otherFreshLock() throws IOException {
        long now = System.currentTimeMillis();
        try (DirectoryStream<Path> locks = Files.newDirectoryStream(file.getParent(), lockPrefix + "*")) {
            for (Path lock : locks) {
                if (lock.equals(ownLock)) {
                    continue;
                }
                try {
                    if (now - Files.getLastModifiedTime(lock).toMillis() < STALE_MILLIS) {
                        return true;
                    }
                } catch (NoSuchFileException e) {
                    // released meanwhile
                }
            }
        }
        return false;
    }
}
