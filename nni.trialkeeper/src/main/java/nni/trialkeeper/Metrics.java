package nni.trialkeeper;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where NNI's trial SDK puts metrics: {@code NNISDK_MEb'<json>'} lines on stdout (every platform but
 * legacy local) and {@code ME<6-digit length><json>\n} frames appended to {@code .nni/metrics}.
 */
final class Metrics {

    static final String MARKER = "NNISDK_MEb'";

    private Metrics() {
    }

    /** @return the metric JSON of a stdout line, or null if the line carries none */
    static String fromStdoutLine(String line) {
        int start = line.indexOf(MARKER);
        if (start < 0) {
            return null;
        }
        int end = line.lastIndexOf('\'');
        int from = start + MARKER.length();
        return end < from ? null : line.substring(from, end);
    }

    /**
     * Reads the frames appended to a metrics file since the last call. A frame still being written
     * is left for the next call. Not thread-safe; one reader per file.
     */
    static final class FileTail {
        private final Path file;
        private long offset;

        FileTail(Path file) {
            this.file = file;
        }

        /** @return the complete new frames' JSON texts (without the trailing newline) */
        List<String> read() throws IOException {
            List<String> metrics = new ArrayList<>();
            if (!Files.exists(file)) {
                return metrics;
            }
            try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
                long length = in.length();
                while (offset + 8 <= length) {
                    byte[] head = new byte[8];
                    in.seek(offset);
                    in.readFully(head);
                    String header = new String(head, StandardCharsets.US_ASCII);
                    int size;
                    try {
                        size = Integer.parseInt(header.substring(2));
                    } catch (NumberFormatException e) {
                        throw new IOException(file + ": corrupt metric frame at byte " + offset + " (header '" + header + "')");
                    }
                    if (offset + 8 + size > length) {
                        break;
                    }
                    byte[] data = new byte[size];
                    in.readFully(data);
                    String text = new String(data, StandardCharsets.UTF_8);
                    metrics.add(text.endsWith("\n") ? text.substring(0, text.length() - 1) : text);
                    offset += 8 + size;
                }
            }
            return metrics;
        }
    }
}
