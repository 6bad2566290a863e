package nni.keeper.internal.pack;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.zip.GZIPOutputStream;

/**
 * Packs a trial code directory once per session into the tar.gz the trial keepers unpack, for every
 * platform that runs keepers (local reuse, remote, the clusters), leaving out what
 * {@code .nniignore} files ignore. A {@code .nniignore} in any directory applies to
 * that directory's subtree, after the rules of the directories above (the deeper file wins); an
 * ignored directory is left out with everything inside, and so are ignored files inside kept
 * directories (which NNI's own tarball still contains). NNI's limits apply to what is kept.
 */
public final class CodeArchiver {

    /** NNI's limit on files and directories in the code directory. */
    public static final int MAX_ENTRIES = 2000;
    /** NNI's limit on the code directory's size in bytes (300 MiB). */
    public static final long MAX_BYTES = 300L * 1024 * 1024;
    static final String IGNORE_FILE = ".nniignore";
    private static final int OFFENDERS_SHOWN = 5;

    /** A code directory beyond NNI's limits; the message names the biggest parts. */
    public static final class TooLargeException extends IOException {
        private static final long serialVersionUID = 1L;

        TooLargeException(String message) {
            super(message);
        }
    }

    private record Entry(Path path, String name, boolean directory, long size) {
    }

    private final int maxEntries;
    private final long maxBytes;

    public CodeArchiver() {
        this(MAX_ENTRIES, MAX_BYTES);
    }

    CodeArchiver(int maxEntries, long maxBytes) {
        this.maxEntries = maxEntries;
        this.maxBytes = maxBytes;
    }

    /** @return the names (relative, with {@code /}, directories ending in {@code /}) that go into the archive */
    public List<String> included(Path directory) throws IOException {
        return collect(directory, null).stream().map(e -> e.directory ? e.name + "/" : e.name).toList();
    }

    /**
     * Writes the archive of {@code directory} to {@code archive}.
     *
     * @throws TooLargeException when what is kept is beyond the limits
     */
    public void pack(Path directory, Path archive) throws IOException {
        pack(directory, archive, null);
    }

    /**
     * Writes the archive of {@code directory} to {@code archive}, leaving out {@code leftOut} (the
     * experiments' own folder when it lies inside the code directory), whatever the ignore files say.
     *
     * @throws TooLargeException when what is kept is beyond the limits
     */
    public void pack(Path directory, Path archive, Path leftOut) throws IOException {
        List<Entry> entries = collect(directory, leftOut == null ? null : leftOut.toAbsolutePath().normalize());
        checkLimits(directory, entries);
        Files.createDirectories(archive.toAbsolutePath().getParent());
        Path temporary = archive.resolveSibling(archive.getFileName() + ".tmp");
        try (OutputStream out = new BufferedOutputStream(new GZIPOutputStream(Files.newOutputStream(temporary)))) {
            TarWriter tar = new TarWriter(out);
            for (Entry entry : entries) {
                if (entry.directory) {
                    tar.directory(entry.name);
                } else if (Files.isSymbolicLink(entry.path)) {
                    tar.symbolicLink(entry.name, Files.readSymbolicLink(entry.path).toString());
                } else {
                    tar.file(entry.name, entry.path, Files.isExecutable(entry.path));
                }
            }
            tar.finish();
        }
        Files.move(temporary, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private List<Entry> collect(Path directory, Path leftOut) throws IOException {
        List<Entry> entries = new ArrayList<>();
        walk(directory.toAbsolutePath().normalize(), "", new ArrayList<>(), entries, leftOut);
        return entries;
    }

    private void walk(Path directory, String relative, List<IgnoreRules> inherited, List<Entry> entries, Path leftOut)
            throws IOException {
        List<IgnoreRules> rules = inherited;
        Path ignoreFile = directory.resolve(IGNORE_FILE);
        if (Files.isRegularFile(ignoreFile)) {
            rules = new ArrayList<>(inherited);
            rules.add(new IgnoreRules(relative, Files.readAllLines(ignoreFile, StandardCharsets.UTF_8)));
        }
        List<Path> children = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory)) {
            stream.forEach(children::add);
        }
        children.sort(Comparator.comparing(p -> p.getFileName().toString()));
        for (Path child : children) {
            String name = relative.isEmpty() ? child.getFileName().toString() : relative + "/" + child.getFileName();
            boolean isDirectory = Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS);
            if (ignored(rules, name, isDirectory) || child.equals(leftOut)) {
                continue;
            }
            if (isDirectory) {
                entries.add(new Entry(child, name, true, 0));
                walk(child, name, rules, entries, leftOut);
            } else if (Files.isRegularFile(child, LinkOption.NOFOLLOW_LINKS) || Files.isSymbolicLink(child)) {
                entries.add(new Entry(child, name, false, Files.isSymbolicLink(child) ? 0 : Files.size(child)));
            }
        }
    }

    private static boolean ignored(List<IgnoreRules> rules, String name, boolean isDirectory) {
        boolean ignored = false;
        for (IgnoreRules file : rules) {
            Boolean decision = file.decide(name, isDirectory);
            if (decision != null) {
                ignored = decision;
            }
        }
        return ignored;
    }

    private void checkLimits(Path directory, List<Entry> entries) throws TooLargeException {
        long bytes = entries.stream().mapToLong(Entry::size).sum();
        if (entries.size() > maxEntries) {
            throw new TooLargeException("trialCodeDirectory " + directory + " has " + entries.size()
                    + " files and directories (not ignored), more than the limit of " + maxEntries + "; the most: "
                    + offenders(entries, e -> 1L, " entries") + ". List what trials do not need in " + IGNORE_FILE);
        }
        if (bytes > maxBytes) {
            throw new TooLargeException("trialCodeDirectory " + directory + " holds " + mebibytes(bytes)
                    + " (not ignored), more than the limit of " + mebibytes(maxBytes) + "; the biggest: "
                    + offenders(entries, Entry::size, null) + ". List what trials do not need in " + IGNORE_FILE);
        }
    }

    /** @return the top-level files and directories with the most weight, heaviest first */
    private static String offenders(List<Entry> entries, java.util.function.ToLongFunction<Entry> weight, String unit) {
        Map<String, Long> byTop = new HashMap<>();
        for (Entry entry : entries) {
            int slash = entry.name.indexOf('/');
            String top = slash < 0 ? (entry.directory ? entry.name + "/" : entry.name) : entry.name.substring(0, slash + 1);
            byTop.merge(top, weight.applyAsLong(entry), Long::sum);
        }
        return byTop.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).limit(OFFENDERS_SHOWN)
                .map(e -> e.getKey() + " (" + (unit == null ? mebibytes(e.getValue()) : e.getValue() + unit) + ")")
                .collect(Collectors.joining(", "));
    }

    private static String mebibytes(long bytes) {
        return String.format(java.util.Locale.ROOT, "%.1f MiB", bytes / 1048576.0);
    }
}
