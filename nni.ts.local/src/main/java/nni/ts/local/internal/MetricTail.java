package nni.ts.local.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.function.BiConsumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one trial's metrics as they are written, from both places NNI's SDK writes them: the
 * local file protocol {@code .nni/metrics} ({@code ME} + 6-digit byte length + payload) and
 * {@code NNISDK_MEb'<json>'} lines in {@code stdout}. Each {@link #read} continues where the last
 * one stopped; an incomplete frame or line waits for the next read unless it is the final one. A
 * damaged frame is logged and skipped: reading resumes at the next {@code ME} header.
 */
final class MetricTail {

    private static final Logger LOG = LoggerFactory.getLogger(MetricTail.class);
    private static final String MARKER = "NNISDK_MEb'";
    private static final int HEADER = 8;

    private final String trialId;
    private final Path metricsFile;
    private final Path stdoutFile;
    private final BiConsumer<String, String> report;
    private long metricsOffset;
    private long stdoutOffset;
    private final ByteArrayOutputStream partialLine = new ByteArrayOutputStream();

    /** @param report told (trial id, metric JSON line) for every metric, in file order */
    MetricTail(String trialId, Path trialDirectory, BiConsumer<String, String> report) {
        this.trialId = trialId;
        this.metricsFile = trialDirectory.resolve(".nni").resolve("metrics");
        this.stdoutFile = trialDirectory.resolve("stdout");
        this.report = report;
    }

    /**
     * Reports every complete metric written since the last call.
     *
     * @param last true once the trial's processes have ended: whatever is left is read to the end
     */
    synchronized void read(boolean last) {
        try {
            readFrames(last);
        } catch (IOException e) {
            LOG.warn("trial {}: reading {} failed: {}", trialId, metricsFile, e.getMessage());
        }
        try {
            readStdout(last);
        } catch (IOException e) {
            LOG.warn("trial {}: reading {} failed: {}", trialId, stdoutFile, e.getMessage());
        }
    }

    private void readFrames(boolean last) throws IOException {
        byte[] data = readFrom(metricsFile, metricsOffset);
        int position = 0;
        while (data.length - position >= HEADER) {
            int length = frameLength(data, position);
            if (length < 0) {
                int next = nextHeader(data, position + 1);
                LOG.warn("trial {}: damaged metric frame at byte {} of {}; skipped {} bytes", trialId,
                        metricsOffset + position, metricsFile, (next < 0 ? data.length : next) - position);
                if (next < 0) {
                    // keep a possible header start for the next read
                    position = last ? data.length : Math.max(position, data.length - HEADER + 1);
                    break;
                }
                position = next;
                continue;
            }
            if (data.length - position - HEADER < length) {
                break;
            }
            String payload = new String(data, position + HEADER, length, StandardCharsets.UTF_8);
            position += HEADER + length;
            deliver(payload.strip());
        }
        if (last && position < data.length) {
            LOG.warn("trial {}: {} bytes of an incomplete metric frame at the end of {} ignored", trialId,
                    data.length - position, metricsFile);
            position = data.length;
        }
        metricsOffset += position;
    }

    private static int frameLength(byte[] data, int at) {
        if (!Character.isLetter(data[at]) || !Character.isLetter(data[at + 1])) {
            return -1;
        }
        int length = 0;
        for (int i = at + 2; i < at + HEADER; i++) {
            if (data[i] < '0' || data[i] > '9') {
                return -1;
            }
            length = length * 10 + (data[i] - '0');
        }
        return length;
    }

    private static int nextHeader(byte[] data, int from) {
        for (int i = from; i + HEADER <= data.length; i++) {
            if (data[i] == 'M' && data[i + 1] == 'E' && frameLength(data, i) >= 0) {
                return i;
            }
        }
        return -1;
    }

    private void readStdout(boolean last) throws IOException {
        byte[] data = readFrom(stdoutFile, stdoutOffset);
        stdoutOffset += data.length;
        int start = 0;
        for (int i = 0; i < data.length; i++) {
            if (data[i] == '\n') {
                partialLine.write(data, start, i - start);
                line(partialLine.toString(StandardCharsets.UTF_8));
                partialLine.reset();
                start = i + 1;
            }
        }
        partialLine.write(data, start, data.length - start);
        if (last && partialLine.size() > 0) {
            line(partialLine.toString(StandardCharsets.UTF_8));
            partialLine.reset();
        }
    }

    private void line(String line) {
        int marker = line.indexOf(MARKER);
        if (marker < 0) {
            return;
        }
        int end = line.lastIndexOf('\'');
        if (end < marker + MARKER.length()) {
            LOG.warn("trial {}: stdout metric marker without a closing quote, skipped: {}", trialId, line);
            return;
        }
        deliver(line.substring(marker + MARKER.length(), end));
    }

    private void deliver(String metric) {
        try {
            report.accept(trialId, metric);
        } catch (IllegalArgumentException e) {
            // the manager has logged it; the next metric is unaffected
        }
    }

    private static byte[] readFrom(Path file, long offset) throws IOException {
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size <= offset) {
                return new byte[0];
            }
            ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(size - offset, Integer.MAX_VALUE - 16));
            while (buffer.hasRemaining() && channel.read(buffer, offset + buffer.position()) > 0) {
                // read to the size seen
            }
            buffer.flip();
            byte[] bytes = new byte[buffer.remaining()];
            buffer.get(bytes);
            return bytes;
        } catch (NoSuchFileException e) {
            return new byte[0];
        }
    }

}
