package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

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
    public void unpacksFilesDirectoriesAndInsideLinks() throws IOException {
        Path archive = new TarBuilder().directory("pkg/").file("pkg/train.py", "print(1)\n")
                .symlink("latest.py", "pkg/train.py").write(temporary.getRoot().toPath().resolve("ok.tar.gz"));
        Path target = target();
        extract(archive, target);
        assertEquals("print(1)\n", Files.readString(target.resolve("pkg/train.py")));
        assertTrue(Files.isSymbolicLink(target.resolve("latest.py")));
        assertEquals("print(1)\n", Files.readString(target.resolve("latest.py")));
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
    public void refusesDotDotEntries() throws IOException {
        Path archive = new TarBuilder().file("ok.txt", "fine").file("../escaped.txt", "bad")
                .write(temporary.getRoot().toPath().resolve("dotdot.tar.gz"));
        Path target = target();
        IOException e = assertThrows(CodeArchive.UnsafeEntryException.class, () -> extract(archive, target));
        assertTrue(e.getMessage(), e.getMessage().contains("'../escaped.txt'"));
        assertFalse(Files.exists(target.getParent().resolve("escaped.txt")));
    }

    @Test
    public void refusesDotDotInTheMiddle() throws IOException {
        Path archive = new TarBuilder().file("a/../../escaped.txt", "bad").write(temporary.getRoot().toPath().resolve("mid.tar.gz"));
        Path target = target();
        assertThrows(CodeArchive.UnsafeEntryException.class, () -> extract(archive, target));
        assertFalse(Files.exists(target.getParent().resolve("escaped.txt")));
    }

    @Test
    public void refusesAbsoluteEntries() throws IOException {
        Path outside = temporary.getRoot().toPath().resolve("absolute.txt");
        Path archive = new TarBuilder().file(outside.toString(), "bad").write(temporary.getRoot().toPath().resolve("abs.tar.gz"));
        IOException e = assertThrows(CodeArchive.UnsafeEntryException.class, () -> extract(archive, target()));
        assertTrue(e.getMessage(), e.getMessage().contains("absolute"));
        assertFalse(Files.exists(outside));
    }

    @Test
    public void refusesLinksLeavingTheDirectoryAndWritesThroughThem() throws IOException {
        Path target = target();
        Path absoluteLink = new TarBuilder().symlink("etc", "/etc").write(temporary.getRoot().toPath().resolve("l1.tar.gz"));
        assertThrows(CodeArchive.UnsafeEntryException.class, () -> extract(absoluteLink, target));
        Path relativeOut = new TarBuilder().symlink("up", "../..").file("up/escaped.txt", "bad")
                .write(temporary.getRoot().toPath().resolve("l2.tar.gz"));
        assertThrows(CodeArchive.UnsafeEntryException.class, () -> extract(relativeOut, target));
        assertFalse(Files.exists(temporary.getRoot().toPath().resolve("escaped.txt")));
        Path hard = new TarBuilder().hardlink("passwd", "/etc/passwd").write(temporary.getRoot().toPath().resolve("l3.tar.gz"));
        assertThrows(CodeArchive.UnsafeEntryException.class, () -> extract(hard, target));
        assertFalse(Files.exists(target.resolve("passwd")));
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
