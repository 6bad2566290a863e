package nni.keeper.internal.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The keeper links of one experiment, kept with it ({@code <exp>/environments/links.json}) so that a
 * restarted runtime can take back the trials its keepers still run: per keeper its id, its token,
 * the trial it runs, the last report sequence applied and the platform's handle on its environment
 * (for {@code EnvironmentLauncher.reattach}), and the URL the keepers call back.
 * Readable by its owner only (mode 0600), like {@code secrets.json}: tokens are secrets, and never
 * appear in the store, the REST API or the log.
 *
 * <p>The keepers a runtime before a restart left stay in the file until this runtime took them back
 * ({@link #put}) or let them go ({@link #remove}): a runtime killed again while it resumes still
 * finds them all. The sequence is written lazily ({@link #flush}); applying a report twice changes
 * nothing, so a sequence older than the truth after a crash costs only reports sent again.
 * Thread-safe.
 */
public final class KeeperLinkFile {

    private static final Logger LOG = LoggerFactory.getLogger(KeeperLinkFile.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** One keeper as it was stored; {@code handle} is the platform's handle on its environment, or empty. */
    public record Keeper(String id, String token, String trial, long applied, String handle) {
    }

    private final Path file;
    private final String managerUrl;
    private final Map<String, Keeper> keepers = new LinkedHashMap<>();
    /** What the file held when it was opened: the links of the runtime before a restart. */
    private final Map<String, Keeper> previous = new LinkedHashMap<>();
    private final String previousManagerUrl;
    private boolean dirty;

    private KeeperLinkFile(Path file, String managerUrl, String previousManagerUrl) {
        this.file = file;
        this.managerUrl = managerUrl;
        this.previousManagerUrl = previousManagerUrl;
    }

    /**
     * @return whether the experiment's file lists the keeper with this token: a keeper of a runtime
     *         before a restart that the experiment, once resumed, may take back
     */
    public static boolean lists(Path experimentDirectory, String keeperId, String token) {
        try {
            JsonNode keeper = JSON.readTree(Files.readAllBytes(fileOf(experimentDirectory))).path("keepers").path(keeperId);
            return keeper.hasNonNull("token") && MessageDigest.isEqual(keeper.get("token").asText().getBytes(StandardCharsets.UTF_8),
                    token.getBytes(StandardCharsets.UTF_8));
        } catch (IOException | RuntimeException unreadable) {
            return false;
        }
    }

    /** Removes the experiment's file: none of its keepers is taken back or awaits a resume any more. */
    static void delete(Path experimentDirectory) {
        try {
            Files.deleteIfExists(fileOf(experimentDirectory));
        } catch (IOException e) {
            LOG.warn("cannot remove the keeper links of {}: {}", experimentDirectory, e.getMessage());
        }
    }

    private static Path fileOf(Path experimentDirectory) {
        return experimentDirectory.resolve("environments").resolve("links.json");
    }

    /** Opens the experiment's file, keeping what an earlier runtime left in it for {@link #previousRunning}. */
    public static KeeperLinkFile open(Path experimentDirectory, String managerUrl) {
        Path file = fileOf(experimentDirectory);
        String previousUrl = null;
        Map<String, Keeper> before = new LinkedHashMap<>();
        try {
            JsonNode stored = JSON.readTree(Files.readAllBytes(file));
            previousUrl = stored.path("managerUrl").asText(null);
            stored.path("keepers").fields().forEachRemaining(entry -> {
                JsonNode keeper = entry.getValue();
                before.put(entry.getKey(), new Keeper(entry.getKey(), keeper.path("token").asText(),
                        keeper.hasNonNull("trial") ? keeper.get("trial").asText() : null, keeper.path("applied").asLong(0),
                        keeper.path("handle").asText("")));
            });
        } catch (NoSuchFileException none) {
            // a new experiment, or one that never ran keepers
        } catch (IOException | RuntimeException e) {
            // not chained: the parser's message would quote the tokens
            LOG.warn("the keeper links in {} cannot be read; their keepers will not be taken back", file);
        }
        KeeperLinkFile links = new KeeperLinkFile(file, managerUrl, previousUrl);
        links.previous.putAll(before);
        return links;
    }

    /** @return the keeper that ran {@code trialId} in the runtime before a restart, if it was stored */
    public synchronized Optional<Keeper> previousRunning(String trialId) {
        return previous.values().stream().filter(k -> trialId.equals(k.trial())).findFirst();
    }

    /** @return the keepers the runtime before a restart left that this one has neither taken back nor let go */
    public synchronized java.util.List<Keeper> previousLeft() {
        return java.util.List.copyOf(previous.values());
    }

    /** @return where the keepers of the runtime before a restart call back, or null */
    public String previousManagerUrl() {
        return previousManagerUrl;
    }

    public synchronized void put(String keeperId, String token, String trial, long applied, String handle) {
        keepers.put(keeperId, new Keeper(keeperId, token, trial, applied, handle));
        previous.remove(keeperId);
        write();
    }

    /** The keeper now runs {@code trial} (null: none). */
    public synchronized void running(String keeperId, String trial) {
        Keeper keeper = keepers.get(keeperId);
        if (keeper != null && !java.util.Objects.equals(keeper.trial(), trial)) {
            keepers.put(keeperId, new Keeper(keeperId, keeper.token(), trial, keeper.applied(), keeper.handle()));
            write();
        }
    }

    /** The platform's handle on the keeper's environment is known (some platforms know it only once it runs). */
    public synchronized void handle(String keeperId, String handle) {
        Keeper keeper = keepers.get(keeperId);
        if (keeper != null && handle != null && !handle.isEmpty() && !handle.equals(keeper.handle())) {
            keepers.put(keeperId, new Keeper(keeperId, keeper.token(), keeper.trial(), keeper.applied(), handle));
            write();
        }
    }

    /** Reports up to {@code seq} are applied; written with the next change or {@link #flush}. */
    public synchronized void applied(String keeperId, long seq) {
        Keeper keeper = keepers.get(keeperId);
        if (keeper != null && seq > keeper.applied()) {
            keepers.put(keeperId, new Keeper(keeperId, keeper.token(), keeper.trial(), seq, keeper.handle()));
            dirty = true;
        }
    }

    public synchronized void remove(String keeperId) {
        boolean listed = keepers.remove(keeperId) != null;
        if (previous.remove(keeperId) != null || listed) {
            write();
        }
    }

    public synchronized void flush() {
        if (dirty) {
            write();
        }
    }

    private void write() {
        ObjectNode root = JSON.createObjectNode();
        root.put("managerUrl", managerUrl);
        ObjectNode all = root.putObject("keepers");
        Map<String, Keeper> listed = new LinkedHashMap<>(previous); // not decided on yet: kept for a restart to come
        listed.putAll(keepers);
        for (Keeper keeper : listed.values()) {
            ObjectNode one = all.putObject(keeper.id());
            one.put("token", keeper.token());
            one.put("trial", keeper.trial());
            one.put("applied", keeper.applied());
            one.put("handle", keeper.handle());
        }
        try {
            Files.createDirectories(file.getParent());
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.deleteIfExists(temporary);
            FileAttribute<?>[] ownerOnly = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                    ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                    : new FileAttribute<?>[0];
            try (OutputStream out = Files.newOutputStream(Files.createFile(temporary, ownerOnly), StandardOpenOption.WRITE)) {
                out.write(JSON.writeValueAsBytes(root));
            }
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            dirty = false;
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the keeper links", e);
        } catch (IOException e) {
            LOG.warn("cannot write the keeper links to {}: {}; after a restart their trials cannot be taken back", file,
                    e.getMessage());
        }
    }
}
