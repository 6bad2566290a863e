package nni.ts.local.internal;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who starts a trial, decided once on disk, so that a trial runs at most once whenever the runtime
 * is killed: the file {@code <trial>/.nni/started} is created exclusively ({@code O_EXCL}) by the
 * trial's launch script as it starts it (a shell builtin, so a start costs no process for it), or by
 * a resume that found no trace of a start. A resume's claim comes with a mark
 * ({@code .nni/resume-<id>}) that the launch it submits consumes as it starts the trial, so that this
 * launch, and only it, may start; a mark still there was never used (the runtime died again before
 * that launch ran), and a later resume may take the claim over by removing it. (Before 2026-11 the
 * claim was a folder holding the marks; such a claim is still understood.)
 */
final class StartClaim {

    private static final Logger LOG = LoggerFactory.getLogger(StartClaim.class);
    private static final String MARK = "resume-";

    private StartClaim() {
    }

    static Path of(Path directory) {
        return directory.resolve(".nni").resolve("started");
    }

    /** Removes the claim of an earlier start of the trial, with its marks. */
    static void clear(Path directory) throws IOException {
        for (Path mark : marks(directory)) {
            Files.deleteIfExists(mark);
        }
        Files.deleteIfExists(of(directory));
    }

    /**
     * @param mark the resume's mark the launch consumes, or null for a first launch
     * @return the bash command with which a launch script claims the start; it fails when the start
     *         is not its own. A first launch's is builtins only: noclobber makes the redirection an
     *         exclusive create, which fails on an existing file or folder.
     */
    static String shellClaim(Path directory, String mark, java.util.function.UnaryOperator<String> quote) {
        return mark == null ? "{ set -C; true > " + quote.apply(of(directory).toString()) + "; }"
                : "rm " + quote.apply(of(directory).resolveSibling(mark).toString());
    }

    /**
     * Claims the start of a trial that shows no trace of one, for a launch this resume submits.
     *
     * @return the mark that launch must consume; null when a launch script claimed the start (the
     *         trial is starting or started: its pid follows) or the claim cannot be made
     */
    static String claimForResume(Path directory) {
        Path claim = of(directory);
        try {
            Files.createFile(claim);
        } catch (FileAlreadyExistsException claimed) {
            if (!takeOverUnused(directory)) {
                return null;
            }
        } catch (IOException e) {
            LOG.warn("{}: cannot claim the trial's start: {}", directory, e.getMessage());
            return null;
        }
        String mark = MARK + UUID.randomUUID();
        try {
            Files.createFile(claim.resolveSibling(mark));
            return mark;
        } catch (IOException e) {
            LOG.warn("{}: cannot mark the trial's start claim: {}", directory, e.getMessage());
            return null;
        }
    }

    /**
     * @return whether the claim was an earlier resume's whose launch never started (its marks are
     *         there): they are removed, so that such a launch, if it ever runs, does not start
     */
    private static boolean takeOverUnused(Path directory) {
        List<Path> marks;
        try {
            marks = marks(directory);
        } catch (IOException e) {
            return false;
        }
        if (marks.isEmpty()) {
            return false; // a launch script made it: the trial started or starts now
        }
        for (Path mark : marks) {
            try {
                Files.delete(mark);
            } catch (NoSuchFileException taken) {
                return false; // its launch consumed it just now: the trial starts
            } catch (IOException e) {
                return false;
            }
        }
        return true;
    }

    /** @return the resume marks of the trial's claim: beside it, or inside a claim folder of the old form */
    private static List<Path> marks(Path directory) throws IOException {
        List<Path> marks = new ArrayList<>();
        for (Path folder : List.of(of(directory).getParent(), of(directory))) {
            if (Files.isDirectory(folder)) {
                try (Stream<Path> entries = Files.list(folder)) {
                    entries.filter(p -> p.getFileName().toString().startsWith(MARK)).forEach(marks::add);
                }
            }
        }
        return marks;
    }
}
