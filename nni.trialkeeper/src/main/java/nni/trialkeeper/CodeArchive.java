package nni.trialkeeper;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Unpacks the trial code archive (a gzip-compressed tar, as {@code tar czf} and the manager write
 * it) into a directory, refusing every entry that would land outside it: absolute names, names
 * with {@code ..} that leave the directory, links whose target leaves it, hard links, devices and
 * entries written through a link. A refused archive fails as a whole with a message naming the entry.
 */
final class CodeArchive {

    /** An entry that must not be unpacked; the message names it. */
    static final class UnsafeEntryException extends IOException {
        private static final long serialVersionUID = 1L;

        UnsafeEntryException(String message) {
            super(message);
        }
    }

    private static final int BLOCK = 512;

    private CodeArchive() {
    }

    static void extract(Path archive, Path target) throws IOException {
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(archive)))) {
            extract(in, target, archive.getFileName().toString());
        }
    }

    static void extract(InputStream in, Path target, String archiveName) throws IOException {
        Files.createDirectories(target);
        Path root = target.toRealPath();
        byte[] header = new byte[BLOCK];
        String longName = null;
        String longLink = null;
        Map<String, String> pax = Map.of();
        while (true) {
            if (!readBlock(in, header)) {
                return; // end of stream without the two zero blocks: accepted, as tar does
            }
            if (isZero(header)) {
                return;
            }
            String name = longName != null ? longName : pax.getOrDefault("path", name(header));
            String link = longLink != null ? longLink : pax.getOrDefault("linkpath", field(header, 157, 100));
            char type = (char) header[156];
            long size = octal(header, 124, 12, archiveName);
            int mode = (int) octal(header, 100, 8, archiveName);
            longName = null;
            longLink = null;
            if (type == 'L' || type == 'K' || type == 'x' || type == 'g') {
                String text = new String(readData(in, size, archiveName), StandardCharsets.UTF_8);
                if (type == 'L') {
                    longName = text.replace("\0", "");
                } else if (type == 'K') {
                    longLink = text.replace("\0", "");
                } else if (type == 'x') {
                    pax = paxRecords(text);
                    continue;
                }
                pax = type == 'g' ? pax : Map.of();
                continue;
            }
            pax = Map.of();
            Path destination = inside(root, name, name, archiveName);
            if (destination.equals(root) && type != '5') {
                throw new UnsafeEntryException(archiveName + ": entry '" + name + "' would replace the code directory itself");
            }
            switch (type) {
                case '0', '\0', '7' -> {
                    ensureParents(root, destination, name, archiveName);
                    if (Files.isSymbolicLink(destination)) {
                        throw new UnsafeEntryException(archiveName + ": entry '" + name + "' would be written through a link");
                    }
                    try (OutputStream out = Files.newOutputStream(destination, StandardOpenOption.CREATE,
                            StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                        copy(in, out, size, archiveName);
                    }
                    skipPadding(in, size, archiveName);
                    if ((mode & 0100) != 0) {
                        setExecutable(destination);
                    }
                }
                case '5' -> {
                    ensureParents(root, destination, name, archiveName);
                    Files.createDirectories(destination);
                    skipData(in, size, archiveName);
                }
                case '2' -> {
                    if (link.isEmpty() || link.startsWith("/")) {
                        throw new UnsafeEntryException(archiveName + ": link '" + name + "' points to the absolute path '" + link + "'");
                    }
                    Path parent = destination.getParent();
                    inside(root, root.relativize(parent).resolve(link).toString(), name, archiveName);
                    ensureParents(root, destination, name, archiveName);
                    Files.deleteIfExists(destination);
                    Files.createSymbolicLink(destination, Path.of(link));
                    skipData(in, size, archiveName);
                }
                case '1' -> throw new UnsafeEntryException(archiveName + ": entry '" + name + "' is a hard link (to '" + link
                        + "'); hard links are not unpacked");
                default -> throw new UnsafeEntryException(archiveName + ": entry '" + name + "' has type '" + type
                        + "' (device, FIFO or unknown); only files, directories and links inside the code are unpacked");
            }
        }
    }

    /** @return where {@code name} lands below root, or throws if it is absolute or leaves root */
    private static Path inside(Path root, String name, String entry, String archiveName) throws UnsafeEntryException {
        if (name.isEmpty() || name.startsWith("/") || name.startsWith("\\") || name.matches("^[A-Za-z]:.*")) {
            throw new UnsafeEntryException(archiveName + ": entry '" + entry + "' has an absolute path; refusing the archive");
        }
        Path resolved = root.resolve(name).normalize();
        if (!resolved.startsWith(root)) {
            throw new UnsafeEntryException(archiveName + ": entry '" + entry + "' would land outside the code directory; refusing the archive");
        }
        return resolved;
    }

    /** Creates the parent directories and checks, on disk, that no link on the way leads out. */
    private static void ensureParents(Path root, Path destination, String name, String archiveName) throws IOException {
        if (destination.equals(root)) {
            return; // "./": the code directory itself
        }
        Path parent = destination.getParent();
        Files.createDirectories(parent);
        if (!parent.toRealPath().startsWith(root)) {
            throw new UnsafeEntryException(archiveName + ": entry '" + name + "' would be written through a link that leaves the code directory");
        }
    }

    private static void setExecutable(Path file) throws IOException {
        try {
            Set<PosixFilePermission> permissions = EnumSet.copyOf(Files.getPosixFilePermissions(file));
            permissions.add(PosixFilePermission.OWNER_EXECUTE);
            Files.setPosixFilePermissions(file, permissions);
        } catch (UnsupportedOperationException notPosix) {
            // a file system without permissions: nothing to set
        }
    }

    private static Map<String, String> paxRecords(String text) {
        Map<String, String> records = new java.util.HashMap<>();
        int at = 0;
        while (at < text.length()) {
            int space = text.indexOf(' ', at);
            if (space < 0) {
                break;
            }
            int length = Integer.parseInt(text.substring(at, space));
            String record = text.substring(space + 1, at + length - 1);
            int equals = record.indexOf('=');
            if (equals > 0) {
                records.put(record.substring(0, equals), record.substring(equals + 1));
            }
            at += length;
        }
        return records;
    }

    private static String name(byte[] header) {
        String name = field(header, 0, 100);
        String prefix = field(header, 345, 155);
        boolean ustar = new String(header, 257, 5, StandardCharsets.US_ASCII).equals("ustar");
        return ustar && !prefix.isEmpty() ? prefix + "/" + name : name;
    }

    private static String field(byte[] header, int offset, int length) {
        int end = offset;
        while (end < offset + length && header[end] != 0) {
            end++;
        }
        return new String(header, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] header, int offset, int length, String archiveName) throws IOException {
        String text = field(header, offset, length).trim();
        if (text.isEmpty()) {
            return 0;
        }
        try {
            return Long.parseLong(text, 8);
        } catch (NumberFormatException e) {
            throw new IOException(archiveName + ": corrupt tar header (number '" + text + "')");
        }
    }

    private static boolean readBlock(InputStream in, byte[] block) throws IOException {
        int read = in.readNBytes(block, 0, BLOCK);
        if (read == 0) {
            return false;
        }
        if (read < BLOCK) {
            throw new EOFException("truncated tar header");
        }
        return true;
    }

    private static boolean isZero(byte[] block) {
        for (byte b : block) {
            if (b != 0) {
                return false;
            }
        }
        return true;
    }

    private static byte[] readData(InputStream in, long size, String archiveName) throws IOException {
        if (size > 1 << 20) {
            throw new IOException(archiveName + ": extended header larger than 1 MiB");
        }
        byte[] data = in.readNBytes((int) size);
        if (data.length < size) {
            throw new EOFException(archiveName + ": truncated");
        }
        skipPadding(in, size, archiveName);
        return data;
    }

    private static void copy(InputStream in, OutputStream out, long size, String archiveName) throws IOException {
        byte[] buffer = new byte[8192];
        long left = size;
        while (left > 0) {
            int n = in.read(buffer, 0, (int) Math.min(buffer.length, left));
            if (n < 0) {
                throw new EOFException(archiveName + ": truncated");
            }
            out.write(buffer, 0, n);
            left -= n;
        }
    }

    private static void skipData(InputStream in, long size, String archiveName) throws IOException {
        skip(in, size, archiveName);
        skipPadding(in, size, archiveName);
    }

    private static void skipPadding(InputStream in, long size, String archiveName) throws IOException {
        long padding = (BLOCK - size % BLOCK) % BLOCK;
        skip(in, padding, archiveName);
    }

    private static void skip(InputStream in, long count, String archiveName) throws IOException {
        long left = count;
        while (left > 0) {
            long n = in.skip(left);
            if (n <= 0) {
                if (in.read() < 0) {
                    throw new EOFException(archiveName + ": truncated");
                }
                n = 1;
            }
            left -= n;
        }
    }
}
