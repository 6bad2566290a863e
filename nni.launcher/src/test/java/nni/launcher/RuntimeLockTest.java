package nni.launcher;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The lock within one process; {@code RuntimeLockIT} runs two real runtimes on one home. */
public class RuntimeLockTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void theHolderWritesItsPidAndTheHomeIsFreeAgainAfterRelease() throws Exception {
        Path home = folder.getRoot().toPath();
        String pid = Long.toString(ProcessHandle.current().pid());
        RuntimeLock lock = RuntimeLock.acquire(home);
        assertEquals(pid, Files.readString(home.resolve(RuntimeLock.FILE)).strip());
        RuntimeLock.HeldException held = assertThrows(RuntimeLock.HeldException.class, () -> RuntimeLock.acquire(home));
        assertEquals(pid, held.holder());
        lock.release();
        RuntimeLock.acquire(home).release();
    }

    @Test
    public void anUnusableHomeIsDescribedInWords() throws Exception {
        Path file = folder.newFile("plain").toPath();
        Main.Refused refused = assertThrows(Main.Refused.class,
                () -> Main.prepare(LaunchOptions.parse(java.util.Map.of("HOME", "/nowhere"), "--home", file.resolve("home").toString())));
        assertEquals(Main.EXIT_USAGE, refused.exitCode());
        assertEquals("cannot use " + file.resolve("home") + " as the runtime's home: not a directory: " + file.resolve("home"),
                refused.getMessage());
    }
}
