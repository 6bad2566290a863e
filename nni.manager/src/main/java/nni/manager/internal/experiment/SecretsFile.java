package nni.manager.internal.experiment;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * The real values of an experiment's secrets, {@code <exp>/secrets.json}: key path to value, readable
 * by the owner only. The store and everything served or logged has them masked; resume reads them
 * from here. The file is created with mode 0600 (never readable by others, not even between
 * creating and a later chmod) and written once, when the experiment is created.
 */
final class SecretsFile {

    static final String NAME = "secrets.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    private SecretsFile() {
    }

    static Path of(Path experimentDirectory) {
        return experimentDirectory.resolve(NAME);
    }

    /** Creates the file (it must not exist yet) holding {@code values}; nothing is created when there are none. */
    static void create(Path experimentDirectory, Map<String, String> values) throws IOException {
        if (values.isEmpty()) {
            return;
        }
        Path file = of(experimentDirectory);
        FileAttribute<?>[] ownerOnly = FileSystems.getDefault().supportedFileAttributeViews().contains("posix")
                ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------"))}
                : new FileAttribute<?>[0];
        try (OutputStream out = Files.newOutputStream(Files.createFile(file, ownerOnly), StandardOpenOption.WRITE)) {
            JSON.writeValue(out, values);
        }
    }

    /**
     * @return the secrets by key path
     * @throws IOException naming the file (never a value) when it is missing or unreadable
     */
    static Map<String, String> read(Path experimentDirectory, Set<String> expected) throws IOException {
        Path file = of(experimentDirectory);
        Map<String, String> values;
        try {
            values = JSON.readValue(Files.readAllBytes(file), new TypeReference<Map<String, String>>() { });
        } catch (NoSuchFileException e) {
            throw new IOException("the experiment's secrets file " + file + " is missing; it holds " + expected
                    + ", which the stored definition has masked", e);
        } catch (JsonProcessingException e) {
            // not chained: the parser's message quotes the file's content
            throw new IOException("the experiment's secrets file " + file + " is not a JSON object of strings");
        }
        if (!values.keySet().containsAll(expected)) {
            Set<String> missing = new java.util.TreeSet<>(expected);
            missing.removeAll(values.keySet());
            throw new IOException("the experiment's secrets file " + file + " lacks " + missing);
        }
        return values;
    }
}
