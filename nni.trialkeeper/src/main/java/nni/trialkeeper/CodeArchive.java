package nni.trialkeeper;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/**
 * Unpacks the trial code archive (a gzip-compressed tar, as {@code tar czf} and the manager write
 * it) into a directory, refusing every entry that would land outside it: absolute names, names
 * with {@code ..} that leave the directory, links whose target leaves it (resolved against what is
 * already on disk, link by link, so a chain of in-tree links cannot lead out), hard links, devices
 * and entries written through a link. The unpacked size and the number of entries are capped, so a
 * small archive cannot fill the disk. A refused or malformed archive fails as a whole with a
 * message naming the entry.
 */
final class CodeArchive {

    /** How much an archive may unpack to. */
    record Limits(long maxBytes, long maxEntries) {
        static final Limits DEFAULT = new Limits(512L << 20, 20_000);
    }

    /** An entry that must not be unpacked; the message names it. */
    static final class UnsafeEntryException extends IOException {
        private static final long serialVersionUID = 1L;

        UnsafeEntryException(String message) {
            super(message);
        }
    }

    private static final int BLOCK = 512;
    /** Links followed while resolving one link target, as the kernel's own limit for a path. */
    private static final int MAX_LINKS_FOLLOWED = 40;

    private CodeArchive() {
    }

    static void extract(Path archive, Path target, Limits limits) throws IOException {
        try (InputStream in = new GZIPInputStream(new BufferedInputStream(Files.newInputStream(archive)))) {
            extract(in, target, archive.getFileName().toString(), limits);
        }
    }

    static void extract(InputStream in, Path target, String archiveName, Limits limits) throws IOException {
        Files.createDirectories(target);
        Path root = target.toRealPath();
        byte[] header = new byte[BLOCK];
        String longName = null;
        String longLink = null;
        Map<String, String> pax = Map.of();
        long entries = 0;
        long unpackedBytes = 0;
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
                byte[] data = readData(in, size, archiveName);
                String text = new String(data, StandardCharsets.UTF_8);
                if (type == 'L') {
                    longName = text.replace("\0", "");
                } else if (type == 'K') {
                    longLink = text.replace("\0", "");
                } else if (type == 'x') {
                    pax = paxRecords(data, archiveName);
                    continue;
                }
                pax = type == 'g' ? pax : Map.of();
                continue;
            }
            pax = Map.of();
            if (++entries > limits.maxEntries()) {
                throw new UnsafeEntryException(archiveName + ": more than " + limits.maxEntries()
                        + " entries; refusing the archive (the keeper's --max-code-entries)");
            }
            Path destination = inside(root, name, name, archiveName);
            if (destination.equals(root) && type != '5') {
                throw new UnsafeEntryException(archiveName + ": entry '" + name + "' would replace the code directory itself");
            }
            switch (type) {
                case '0', '\0', '7' -> {
                    unpackedBytes += size;
                    if (unpackedBytes > limits.maxBytes()) {
                        throw new UnsafeEntryException(archiveName + ": entry '" + name + "' takes the unpacked code over "
                                + (limits.maxBytes() >> 20) + " MiB; refusing the archive (the keeper's --max-code-mb)");
                    }
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
                    ensureParents(root, destination, name, archiveName);
                    if (Files.exists(destination, LinkOption.NOFOLLOW_LINKS)) {
                        // replacing a path another link already resolved through could redirect that link
                        throw new UnsafeEntryException(archiveName + ": link '" + name + "' would replace an entry unpacked before it");
                    }
                    checkLinkTarget(root, destination.getParent().toRealPath(), link, name, archiveName);
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
        Path resolved;
        try {
            resolved = root.resolve(name).normalize();
        } catch (java.nio.file.InvalidPathException e) {
            throw new UnsafeEntryException(archiveName + ": entry '" + entry.replace("\0", "\\0") + "' is not a valid path; refusing the archive");
        }
        if (!resolved.startsWith(root)) {
            throw new UnsafeEntryException(archiveName + ": entry '" + entry + "' would land outside the code directory; refusing the archive");
        }
        return resolved;
    }

    /**
     * Follows a link target from the link's (real) directory the way the kernel will, component by
     * component against what is on disk now, expanding every link met on the way: every step must
     * stay inside root. Past a component that does not exist yet, {@code ..} is refused, since what
     * is created there later decides where it leads.
     */
    private static void checkLinkTarget(Path root, Path directory, String target, String name, String archiveName)
            throws UnsafeEntryException, IOException {
        Deque<String> components = new ArrayDeque<>(List.of(target.split("/")));
        Path current = directory;
        boolean missing = false;
        int followed = 0;
        while (!components.isEmpty()) {
            String component = components.removeFirst();
            if (component.isEmpty() || component.equals(".")) {
                continue;
            }
            if (component.equals("..")) {
                if (missing) {
                    throw new UnsafeEntryException(archiveName + ": link '" + name + "' points to '" + target
                            + "', which goes up from a directory that does not exist yet; refusing the archive");
                }
                if (current.equals(root)) {
                    throw new UnsafeEntryException(archiveName + ": link '" + name + "' points to '" + target
                            + "', which leads outside the code directory; refusing the archive");
                }
                current = current.getParent();
                continue;
            }
            Path next = current.resolve(component);
            if (!missing && Files.isSymbolicLink(next)) {
                if (++followed > MAX_LINKS_FOLLOWED) {
                    throw new UnsafeEntryException(archiveName + ": link '" + name + "' points through more than "
                            + MAX_LINKS_FOLLOWED + " links; refusing the archive");
                }
                String inner = Files.readSymbolicLink(next).toString();
                if (inner.startsWith("/")) {
                    throw new UnsafeEntryException(archiveName + ": link '" + name + "' points through '" + root.relativize(next)
                            + "', an absolute link; refusing the archive");
                }
                List<String> expanded = List.of(inner.split("/"));
                for (int i = expanded.size() - 1; i >= 0; i--) {
                    components.addFirst(expanded.get(i));
                }
                continue;
            }
            missing = missing || !Files.exists(next, LinkOption.NOFOLLOW_LINKS);
            current = next;
        }
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

    /**
     * Parses pax extended header records, {@code "<length> <key>=<value>\n"} where the length (in
     * bytes) covers the whole record.
     *
     * @throws IOException naming the record when one is malformed
     */
    static Map<String, String> paxRecords(byte[] data, String archiveName) throws IOException {
        Map<String, String> records = new java.util.HashMap<>();
        int at = 0;
        while (at < data.length) {
            if (data[at] == 0) {
                break; // padding some writers leave after the last record
            }
            int space = at;
            long length = 0;
            while (space < data.length && data[space] >= '0' && data[space] <= '9' && space - at < 10) {
                length = length * 10 + (data[space] - '0');
                space++;
            }
            if (space == at || space >= data.length || data[space] != ' ' || length <= space - at + 1
                    || at + length > data.length || data[(int) (at + length - 1)] != '\n') {
                throw new IOException(archiveName + ": malformed pax extended header at byte " + at + "; refusing the archive");
            }
            String record = new String(data, space + 1, (int) (at + length - 1 - (space + 1)), StandardCharsets.UTF_8);
            int equals = record.indexOf('=');
            if (equals <= 0) {
                throw new IOException(archiveName + ": malformed pax extended header record '" + record + "'; refusing the archive");
            }
            records.put(record.substring(0, equals), record.substring(equals + 1));
            at += (int) length;
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
            long value = Long.parseLong(text, 8);
            if (value < 0) {
                throw new NumberFormatException();
            }
            return value;
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
