package nni.shell.internal.nnictl;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assume.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * NNI's experiment registry written and read back in NNI's format, and NNI's lock protocol honoured;
 * checked against NNI's own ways with the file, reproduced in {@code nnictl/nni_tools.py}.
 */
public class ExperimentRegistryTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private static Map<String, Object> entry(String id, long pid, Long endTime) {
        return ExperimentRegistry.entry(id, 8080, 1_700_000_000_000L, endTime, "RUNNING", "local", "mnist é", List.of(),
                pid, "/home/u/nni-experiments", "experiments/" + id);
    }

    @Test
    public void anEntryHasNnisFieldsInNnisOrderAndNotEndedIsNA() throws Exception {
        ExperimentRegistry registry = new ExperimentRegistry(folder.getRoot().toPath());
        registry.update(entries -> entries.put("abc12345", entry("abc12345", 4321, null)));
        JsonNode written = JSON.readTree(registry.file().toFile()).get("abc12345");
        List<String> fields = new ArrayList<>();
        written.fieldNames().forEachRemaining(fields::add);
        assertEquals(List.of("id", "port", "startTime", "endTime", "status", "platform", "experimentName", "tag", "pid",
                "webuiUrl", "logDir", "prefixUrl"), fields);
        assertEquals("N/A", written.get("endTime").asText());
        assertEquals(4321, written.get("pid").asLong());
        assertTrue(written.get("tag").isArray() && written.get("webuiUrl").isArray());
        assertEquals(JSON.writeValueAsString(Map.of("abc12345", entry("abc12345", 4321, null))), JSON.writeValueAsString(registry.read()));
        try (var files = Files.list(folder.getRoot().toPath())) {
            assertEquals(List.of(ExperimentRegistry.FILE), files.map(f -> f.getFileName().toString()).toList());
        }
    }

    @Test
    public void theFileIsWhatPythonsJsonDumpWithIndent4WritesAndNnisLauncherEntriesReadBack() throws Exception {
        assumeTrue("python3 is needed", Python.available());
        Path directory = folder.getRoot().toPath();
        ExperimentRegistry registry = new ExperimentRegistry(directory);
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor();
        long dead = ended.pid();
        registry.update(entries -> entries.put("abc12345", entry("abc12345", dead, 1_700_000_100_000L)));
        String ours = Files.readString(registry.file(), StandardCharsets.UTF_8);
        String python = Python.run("-c", "import json,sys; print(json.dumps(json.load(open(sys.argv[1], encoding='utf_8')), "
                + "indent=4, ensure_ascii=False), end='')", registry.file().toString());
        assertEquals(python, ours);

        // NNI's launcher adds its experiment under the lock; both entries are there for both sides
        Python.tools("add", directory.toString(), "nni00001", "8081", Long.toString(ProcessHandle.current().pid()));
        Map<String, Map<String, Object>> read = registry.read();
        assertEquals(List.of("abc12345", "nni00001"), List.copyOf(read.keySet()));
        assertEquals("INITIALIZED", read.get("nni00001").get("status"));
        assertEquals(8081, read.get("nni00001").get("port"));
        assertEquals(ProcessHandle.current().pid(), ((Number) read.get("nni00001").get("pid")).longValue());
        JsonNode listed = JSON.readTree(Python.tools("list", directory.toString()));
        assertEquals(2, listed.size());
        assertEquals("abc12345", listed.get(0).get("id").asText());
        // nnictl's own rule: an experiment whose pid is gone is STOPPED; one whose pid runs keeps its status
        assertEquals("STOPPED", listed.get(0).get("status").asText());
        assertEquals("INITIALIZED", listed.get(1).get("status").asText());
        assertEquals("STOPPED", registry.read().get("abc12345").get("status"));
        try (var files = Files.list(directory)) {
            assertEquals("no lock file is left behind", 1, files.count());
        }
    }

    @Test(timeout = 30_000)
    public void aFreshLockOfAnotherProcessIsWaitedForAndAStaleOneIgnored() throws Exception {
        Path directory = folder.getRoot().toPath();
        ExperimentRegistry registry = new ExperimentRegistry(directory);
        Path stale = Files.createFile(directory.resolve(".experiment.lock.777777"));
        Files.setLastModifiedTime(stale, FileTime.fromMillis(System.currentTimeMillis() - 10_000));
        registry.update(entries -> entries.put("first000", entry("first000", 1, null)));
        assertTrue("a stale lock is NNI's to clean, not ours", Files.exists(stale));

        Path fresh = Files.createFile(directory.resolve(".experiment.lock.888888"));
        // fresh until the test deletes it, however long a loaded machine takes to get there (a lock turns stale after 2 s)
        Files.setLastModifiedTime(fresh, FileTime.fromMillis(System.currentTimeMillis() + 3_600_000));
        AtomicBoolean released = new AtomicBoolean();
        AtomicReference<Boolean> ranAfterRelease = new AtomicReference<>();
        AtomicReference<Thread> updater = new AtomicReference<>();
        CompletableFuture<Object> update = CompletableFuture.supplyAsync(() -> {
            updater.set(Thread.currentThread());
            try {
                return registry.update(entries -> {
                    ranAfterRelease.set(released.get());
                    return entries.put("second00", entry("second00", 2, null));
                });
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        // it waits (sleeping between looks) while the other process's lock is fresh
        await().atMost(Duration.ofSeconds(10)).until(() -> updater.get() != null
                && updater.get().getState() == Thread.State.TIMED_WAITING
                && java.util.Arrays.stream(updater.get().getStackTrace())
                        .anyMatch(f -> f.getClassName().equals(ExperimentRegistry.class.getName()) && f.getMethodName().equals("lock")));
        released.set(true);
        Files.delete(fresh);
        update.get();
        assertEquals(Boolean.TRUE, ranAfterRelease.get());
        assertEquals(List.of("first000", "second00"), List.copyOf(registry.read().keySet()));
    }

    @Test
    public void anUnreadableRegistryReadsAsEmptyAsInNni() throws Exception {
        Path directory = folder.getRoot().toPath();
        Files.writeString(directory.resolve(ExperimentRegistry.FILE), "{not json");
        ExperimentRegistry registry = new ExperimentRegistry(directory);
        assertEquals(Map.of(), registry.read());
        registry.update(entries -> entries.put("x0000000", entry("x0000000", 5, null)));
        assertEquals(List.of("x0000000"), List.copyOf(registry.read().keySet()));
    }
}
