package nni.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * An access token (the login's, the console's) kept in a file readable by its owner only (mode 0600): made with a random
 * token the first time one is needed, read back afterwards. A file that others may read, or that
 * holds no token, is refused: the token could be known, or the file was damaged.
 */
public final class TokenFile {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    /** The token and whether it was made now (then it is shown once). */
    public record Token(String value, boolean created) {
    }

    private final Path file;
    private final String what;

    /** @param what what the token is for, as messages name it ("console token") */
    public TokenFile(Path file, String what) {
        this.file = file;
        this.what = what;
    }

    public Path path() {
        return file;
    }

    /**
     * @return the token in the file, or a new one written there when there is no file
     * @throws IOException with a message for the user when the file cannot be used
     */
    public Token readOrCreate() throws IOException {
        if (Files.exists(file)) {
            return new Token(read(), false);
        }
        String token = newToken();
        Files.createDirectories(file.toAbsolutePath().getParent());
        Path temporary = file.resolveSibling(file.getFileName() + ".new");
        Files.deleteIfExists(temporary);
        if (posix(file.toAbsolutePath().getParent())) {
            Files.createFile(temporary, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } else {
            Files.createFile(temporary);
        }
        Files.writeString(temporary, token + "\n", StandardCharsets.US_ASCII);
        return publish(temporary, token);
    }

    /**
     * Puts the written token in place unless the file has appeared meanwhile (a process that made one
     * at the same moment), then that one is used. A hard link is made, which fails when the name
     * exists; an atomic move would replace the other's file on Linux (rename(2)), and both would go on
     * with different tokens. Where links are not supported the move is plain, which refuses an
     * existing file (the JDK checks for one just before it renames: a gap remains there).
     */
    Token publish(Path temporary, String token) throws IOException {
        try {
            Files.createLink(file, temporary);
        } catch (FileAlreadyExistsException madeMeanwhile) {
            Files.delete(temporary);
            return new Token(read(), false);
        } catch (UnsupportedOperationException | FileSystemException noLinks) {
            try {
                Files.move(temporary, file);
            } catch (FileAlreadyExistsException madeMeanwhile) {
                Files.delete(temporary);
                return new Token(read(), false);
            }
            return new Token(token, true);
        }
        Files.delete(temporary);
        return new Token(token, true);
    }

    private String read() throws IOException {
        if (posix(file)) {
            Set<PosixFilePermission> permissions = Files.getPosixFilePermissions(file);
            if (!OWNER_ONLY.containsAll(permissions)) {
                throw new IOException("the " + what + " file " + file + " may be read by others (mode "
                        + PosixFilePermissions.toString(permissions) + "): make it readable by its owner only"
                        + " (chmod 600), or delete it to get a new token");
            }
        }
        String token = Files.readString(file, StandardCharsets.US_ASCII).strip();
        if (token.isEmpty()) {
            throw new IOException("the " + what + " file " + file + " holds no token: delete it to get a new one");
        }
        return token;
    }

    private static boolean posix(Path path) {
        return Files.getFileAttributeView(path, PosixFileAttributeView.class) != null;
    }

    static String newToken() {
        byte[] bytes = new byte[32];
        RANDOM.nextBytes(bytes);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
