package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * The Java keeper's unpacking at unit level. Hostile archives (links out, link chains, {@code ..},
 * absolute names, hard links, devices, size and entry caps, malformed pax) are refused by both
 * keepers in nni.itest's keeper conformance suite.
 */
public class CodeArchiveTest {

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    private static void extract(Path archive, Path target) throws IOException {
        CodeArchive.extract(archive, target, CodeArchive.Limits.DEFAULT);
    }

    private Path target() throws IOException {
        return temporary.newFolder("sandbox", "code").toPath();
    }

    @Test
    public void unpacksWhatTheSystemTarWrites() throws Exception {
        Path source = temporary.newFolder("source").toPath();
        Files.createDirectories(source.resolve("a/b"));
        Files.writeString(source.resolve("a/b/" + "x".repeat(120) + ".txt"), "long name");
        Files.writeString(source.resolve("run.sh"), "echo hi");
        Path archive = temporary.getRoot().toPath().resolve("system.tar.gz");
        Process tar = new ProcessBuilder("tar", "czf", archive.toString(), "-C", source.toString(), ".").inheritIO().start();
        assertTrue(tar.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, tar.exitValue());
        Path target = target();
        extract(archive, target);
        assertEquals("long name", Files.readString(target.resolve("a/b/" + "x".repeat(120) + ".txt")));
        assertEquals("echo hi", Files.readString(target.resolve("run.sh")));
    }

    @Test
    public void paxRecordsAreReadByByteLengthAndMalformedOnesRefused() throws IOException {
        byte[] records = "26 path=caf\u00e9/train-\u00fc.py\n8 a=b=c\n".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(java.util.Map.of("path", "caf\u00e9/train-\u00fc.py", "a", "b=c"), CodeArchive.paxRecords(records, "x.tar.gz"));
        for (String bad : new String[] {"abc path=x\n", "99 path=x\n", "3 p\n", "10 path=xx\n", "9 pathx\n"}) {
            IOException e = assertThrows(IOException.class,
                    () -> CodeArchive.paxRecords(bad.getBytes(java.nio.charset.StandardCharsets.UTF_8), "x.tar.gz"));
            assertTrue(e.getMessage(), e.getMessage().contains("malformed pax"));
        }
    }
}
