package nni.trialkeeper;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Why a trial failed, as a user wants it in {@code nni:trial}, the REST API and the run summary:
 * the exit code and the last lines the trial wrote to its {@code stderr} (a Python traceback ends
 * with the line that says what went wrong). Public for the local platform, which embeds this class so that
 * a local trial and a keeper's trial fail with the same words.
 */
public final class StderrTail {

    /** Lines and characters of stderr a message carries at most. */
    static final int LINES = 5;
    static final int CHARACTERS = 600;
    private static final int READ_BYTES = 8192;

    private StderrTail() {
    }

    /** @return {@code exit code N}, followed by {@code : <last lines of stderr>} when the file has any */
    public static String failure(int exitCode, Path stderr) {
        String tail = tail(stderr);
        return "exit code " + exitCode + (tail.isEmpty() ? "" : ": " + tail);
    }

    /** @return the last non-blank lines of the file joined with {@code " | "}, or empty when it has none or cannot be read */
    static String tail(Path file) {
        if (!Files.isRegularFile(file)) {
            return "";
        }
        try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
            long start = Math.max(0, in.length() - READ_BYTES);
            byte[] bytes = new byte[(int) (in.length() - start)];
            in.seek(start);
            in.readFully(bytes);
            List<String> lines = Arrays.stream(new String(bytes, StandardCharsets.UTF_8).split("\\R"))
                    .map(String::strip).filter(line -> !line.isEmpty()).toList();
            if (start > 0 && !lines.isEmpty()) {
                lines = lines.subList(1, lines.size()); // the first line read may be cut
            }
            String joined = String.join(" | ", lines.subList(Math.max(0, lines.size() - LINES), lines.size()));
            return joined.length() <= CHARACTERS ? joined : "..." + joined.substring(joined.length() - CHARACTERS);
        } catch (IOException e) {
            return "";
        }
    }
}
