package nni.http;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** A token file: made once, readable by its owner only, refused when others may read it or it is empty. */
public class TokenFileTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void theTokenFileIsMadeOnceReadableByItsOwnerOnlyAndReadBack() throws IOException {
        Path file = folder.getRoot().toPath().resolve("home").resolve("login.token");
        TokenFile.Token made = new TokenFile(file, "login token").readOrCreate();
        assertTrue(made.created());
        assertTrue(made.value(), made.value().matches("[A-Za-z0-9_-]{43}"));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        TokenFile.Token again = new TokenFile(file, "login token").readOrCreate();
        assertFalse(again.created());
        assertEquals(made.value(), again.value());
        assertNotEquals(made.value(), new TokenFile(folder.getRoot().toPath().resolve("other"), "login token").readOrCreate().value());
    }

    @Test
    public void aTokenFileOthersMayReadOrAnEmptyOneIsRefused() throws IOException {
        Path open = folder.newFile("open.token").toPath();
        Files.writeString(open, "secret\n");
        Files.setPosixFilePermissions(open, PosixFilePermissions.fromString("rw-r--r--"));
        IOException refused = assertThrows(IOException.class, () -> new TokenFile(open, "login token").readOrCreate());
        assertTrue(refused.getMessage(), refused.getMessage().contains("chmod 600") && !refused.getMessage().contains("secret"));
        Path empty = folder.newFile("empty.token").toPath();
        Files.setPosixFilePermissions(empty, PosixFilePermissions.fromString("rw-------"));
        assertTrue(assertThrows(IOException.class, () -> new TokenFile(empty, "login token").readOrCreate()).getMessage().contains("holds no token"));
    }

    /**
     * Two processes making the token at the same moment: the one that puts its file in place second
     * uses the first one's token and leaves its file alone (an atomic move replaced it on Linux, and
     * the two went on with different tokens).
     */
    @Test
    public void aTokenFileMadeMeanwhileByAnotherIsUsedAndLeftAsItIs() throws IOException {
        Path file = folder.getRoot().toPath().resolve("login.token");
        TokenFile tokens = new TokenFile(file, "login token");
        Path mine = Files.writeString(folder.getRoot().toPath().resolve("login.token.new"), "mine\n");
        Files.writeString(file, "theirs\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));

        TokenFile.Token used = tokens.publish(mine, "mine");

        assertEquals("theirs", used.value());
        assertFalse(used.created());
        assertEquals("theirs\n", Files.readString(file));
        assertFalse(Files.exists(mine));
    }
}
