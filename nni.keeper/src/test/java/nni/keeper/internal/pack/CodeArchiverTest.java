package nni.keeper.internal.pack;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.GZIPInputStream;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class CodeArchiverTest {

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    private Path file(Path root, String name, String content) throws IOException {
        Path file = root.resolve(name);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
        return file;
    }

    @Test
    public void nniignoreFollowsGitignoreRulesInEveryDirectory() throws IOException {
        Path code = temporary.newFolder("code").toPath();
        file(code, ".nniignore", String.join("\n", "# comment", "", "*.log", "!keep.log", "data/", "/top.txt", "build/**/*.o", "docs/*.md", ""));
        file(code, "main.py", "x");
        file(code, "run.log", "x");
        file(code, "keep.log", "x");
        file(code, "sub/deep.log", "x");             // unanchored: any depth
        file(code, "data/big.bin", "x");              // directory rule
        file(code, "sub/data/other.bin", "x");        // directory rule matches at any depth
        file(code, "data.txt", "x");                  // a file named like the directory stays
        file(code, "top.txt", "x");                   // anchored
        file(code, "sub/top.txt", "x");               // anchored rule does not reach here
        file(code, "build/a/b/x.o", "x");             // **
        file(code, "build/x.o", "x");                 // ** matches zero directories
        file(code, "build/x.c", "x");
        file(code, "docs/a.md", "x");
        file(code, "docs/deeper/b.md", "x");          // * does not cross /
        // a .nniignore inside a subfolder applies to its subtree, and may re-include
        file(code, "model/.nniignore", "checkpoints\n!run.log\n");
        file(code, "model/checkpoints/epoch1.pt", "x");
        file(code, "model/run.log", "x");
        file(code, "model/net.py", "x");
        List<String> included = new CodeArchiver().included(code);
        assertEquals(List.of(".nniignore", "build/", "build/a/", "build/a/b/", "build/x.c", "data.txt", "docs/", "docs/deeper/",
                "docs/deeper/b.md", "keep.log", "main.py", "model/", "model/.nniignore", "model/net.py", "model/run.log",
                "sub/", "sub/top.txt"), included);
    }

    @Test
    public void archiveIsATarGzWithExactlyTheIncludedEntriesAndTheirContent() throws IOException {
        Path code = temporary.newFolder("code").toPath();
        file(code, ".nniignore", "secret/\n");
        file(code, "a.py", "print(1)\n");
        file(code, "secret/key", "x");
        String longName = "d/" + "n".repeat(120) + ".txt";
        file(code, longName, "long");
        Path archive = temporary.getRoot().toPath().resolve("out/code.tar.gz");
        // the experiments' folder inside the code directory is never packed, whatever .nniignore says
        file(code, "nni-experiments/abcd1234/db/nni.sqlite", "x");
        new CodeArchiver().pack(code, archive, code.resolve("nni-experiments"));
        List<String> names = new ArrayList<>();
        List<String> contents = new ArrayList<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(archive))) {
            String pendingLongName = null;
            while (true) {
                byte[] header = in.readNBytes(512);
                if (header.length < 512 || header[0] == 0) {
                    break;
                }
                String name = new String(header, 0, 100, StandardCharsets.UTF_8).replace("\0", "");
                long size = Long.parseLong(new String(header, 124, 11, StandardCharsets.US_ASCII).trim(), 8);
                byte[] data = in.readNBytes((int) size);
                in.readNBytes((int) ((512 - size % 512) % 512));
                if (header[156] == 'L') {
                    pendingLongName = new String(data, StandardCharsets.UTF_8).replace("\0", "");
                    continue;
                }
                names.add(pendingLongName != null ? pendingLongName : name);
                pendingLongName = null;
                contents.add(new String(data, StandardCharsets.UTF_8));
            }
        }
        assertEquals(List.of(".nniignore", "a.py", "d/", longName), names);
        assertEquals("print(1)\n", contents.get(1));
        assertEquals("long", contents.get(3));
    }

    @Test
    public void tooManyEntriesNamesTheBiggestDirectories() throws IOException {
        Path code = temporary.newFolder("code").toPath();
        for (int i = 0; i < 8; i++) {
            file(code, "many/f" + i, "x");
        }
        file(code, "few/a", "x");
        file(code, "main.py", "x");
        CodeArchiver.TooLargeException e = assertThrows(CodeArchiver.TooLargeException.class,
                () -> new CodeArchiver(5, 1 << 20).pack(code, temporary.getRoot().toPath().resolve("x.tgz")));
        assertTrue(e.getMessage(), e.getMessage().contains("12 files and directories") && e.getMessage().contains("limit of 5"));
        assertTrue(e.getMessage(), e.getMessage().contains("the most: many/ (9 entries), few/ (2 entries), main.py (1 entries)"));
        assertTrue(e.getMessage(), e.getMessage().contains(".nniignore"));
    }

    @Test
    public void tooManyBytesNamesTheBiggestPartsAndIgnoredFilesDoNotCount() throws IOException {
        Path code = temporary.newFolder("code").toPath();
        Files.createDirectories(code.resolve("weights"));
        Files.write(code.resolve("weights/w.bin"), new byte[3000]);
        Files.write(code.resolve("small.bin"), new byte[100]);
        Files.write(code.resolve("ignored.bin"), new byte[100_000]);
        file(code, ".nniignore", "ignored.bin\n");
        CodeArchiver.TooLargeException e = assertThrows(CodeArchiver.TooLargeException.class,
                () -> new CodeArchiver(100, 2000).pack(code, temporary.getRoot().toPath().resolve("x.tgz")));
        assertTrue(e.getMessage(), e.getMessage().startsWith("trialCodeDirectory " + code + " holds 0.0 MiB"));
        assertTrue(e.getMessage(), e.getMessage().contains("the biggest: weights/"));
        assertTrue(e.getMessage(), !e.getMessage().contains("ignored.bin"));
        new CodeArchiver(100, 4000).pack(code, temporary.getRoot().toPath().resolve("ok.tgz"));
        assertTrue(Files.size(temporary.getRoot().toPath().resolve("ok.tgz")) > 0);
    }

    @Test
    public void nnisDefaultLimitsAre2000EntriesAnd300MiB() {
        assertEquals(2000, CodeArchiver.MAX_ENTRIES);
        assertEquals(300L * 1024 * 1024, CodeArchiver.MAX_BYTES);
    }
}
