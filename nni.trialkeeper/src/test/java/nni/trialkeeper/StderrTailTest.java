package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Issue 17: a failed trial's message carries the end of its stderr, short enough for a table. */
public class StderrTailTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void theLastLinesFollowTheExitCode() throws Exception {
        Path stderr = folder.getRoot().toPath().resolve("stderr");
        Files.writeString(stderr, "one\ntwo\n\n   \nthree\nfour\nfive\nsix\nValueError: x\n");
        assertEquals("exit code 1: three | four | five | six | ValueError: x", StderrTail.failure(1, stderr));
    }

    @Test
    public void noStderrMeansTheExitCodeAlone() throws Exception {
        assertEquals("exit code 2", StderrTail.failure(2, folder.getRoot().toPath().resolve("missing")));
        Path empty = Files.writeString(folder.getRoot().toPath().resolve("empty"), "\n\n");
        assertEquals("exit code 2", StderrTail.failure(2, empty));
    }

    @Test
    public void aHugeFileIsReadFromItsEndAndCut() throws Exception {
        Path stderr = folder.getRoot().toPath().resolve("stderr");
        Files.writeString(stderr, "x".repeat(100_000) + "\n" + "y".repeat(2000) + "\nlast line\n");
        String message = StderrTail.failure(9, stderr);
        assertTrue(message, message.startsWith("exit code 9: ...y") && message.endsWith("y | last line"));
        assertEquals("exit code 9: ".length() + 3 + StderrTail.CHARACTERS, message.length());
    }
}
