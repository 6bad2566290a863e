package nni.manager.internal.reuse;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Stream;
import java.util.zip.GZIPOutputStream;

/**
 * Packs a trial code directory into the tar.gz the keeper unpacks: directories, regular files
 * (with the executable bit) and symbolic links, names relative to the directory. Long names use
 * the GNU {@code L} record. Which files go in is the caller's {@code include} filter (the hook for
 * {@code .nniignore}).
 */
public final class CodePacker {

    private CodePacker() {
    }

    public static void pack(Path directory, Path archive, Predicate<Path> include) throws IOException {
        Files.createDirectories(archive.getParent());
        Path temporary = archive.resolveSibling(archive.getFileName() + ".tmp");
        List<Path> entries;
        try (Stream<Path> walk = Files.walk(directory)) {
            entries = walk.filter(p -> !p.equals(directory)).filter(p -> include.test(directory.relativize(p))).sorted().toList();
        }
        try (OutputStream out = new BufferedOutputStream(new GZIPOutputStream(Files.newOutputStream(temporary)))) {
            for (Path entry : entries) {
                String name = directory.relativize(entry).toString().replace('\\', '/');
                if (Files.isSymbolicLink(entry)) {
                    header(out, name, '2', 0, Files.readSymbolicLink(entry).toString(), 0777);
                } else if (Files.isDirectory(entry, LinkOption.NOFOLLOW_LINKS)) {
                    header(out, name + "/", '5', 0, "", 0755);
                } else if (Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS)) {
                    long size = Files.size(entry);
                    header(out, name, '0', size, "", Files.isExecutable(entry) ? 0755 : 0644);
                    long copied = Files.copy(entry, out);
                    if (copied != size) {
                        throw new IOException(entry + " changed size while it was packed");
                    }
                    out.write(new byte[(int) ((512 - size % 512) % 512)]);
                }
            }
            out.write(new byte[1024]);
        }
        Files.move(temporary, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static void header(OutputStream out, String name, char type, long size, String link, int mode) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > 100) {
            byte[] longName = (name + "\0").getBytes(StandardCharsets.UTF_8);
            header(out, "././@LongLink", 'L', longName.length, "", 0644);
            out.write(longName);
            out.write(new byte[(512 - longName.length % 512) % 512]);
        }
        byte[] h = new byte[512];
        put(h, 0, 100, nameBytes);
        put(h, 100, 8, String.format("%07o", mode).getBytes(StandardCharsets.US_ASCII));
        put(h, 108, 8, "0000000".getBytes(StandardCharsets.US_ASCII));
        put(h, 116, 8, "0000000".getBytes(StandardCharsets.US_ASCII));
        put(h, 124, 12, String.format("%011o", size).getBytes(StandardCharsets.US_ASCII));
        put(h, 136, 12, "00000000000".getBytes(StandardCharsets.US_ASCII));
        h[156] = (byte) type;
        put(h, 157, 100, link.getBytes(StandardCharsets.UTF_8));
        put(h, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
        put(h, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        put(h, 148, 8, (String.format("%06o", sum) + "\0 ").getBytes(StandardCharsets.US_ASCII));
        out.write(h);
    }

    private static void put(byte[] header, int offset, int length, byte[] value) {
        System.arraycopy(value, 0, header, offset, Math.min(length, value.length));
    }
}
