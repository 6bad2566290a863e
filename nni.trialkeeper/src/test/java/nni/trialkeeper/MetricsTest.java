package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class MetricsTest {

    @Rule
    public TemporaryFolder temporary = new TemporaryFolder();

    private static final String METRIC = "{\"parameter_id\": 0, \"trial_job_id\": \"Ab1cD\", \"type\": \"PERIODICAL\", \"sequence\": 3, \"value\": \"0.83\"}";

    @Test
    public void findsTheMarkerAnywhereOnAStdoutLine() {
        assertEquals(METRIC, Metrics.fromStdoutLine("NNISDK_MEb'" + METRIC + "'"));
        assertEquals(METRIC, Metrics.fromStdoutLine("[12:00] PRINT NNISDK_MEb'" + METRIC + "'"));
        assertNull(Metrics.fromStdoutLine("epoch 3 loss 0.2"));
        assertNull(Metrics.fromStdoutLine("NNISDK_MEb"));
    }

    @Test
    public void readsCompleteFramesAndLeavesAPartialOneForLater() throws Exception {
        Path file = temporary.getRoot().toPath().resolve("metrics");
        Metrics.FileTail tail = new Metrics.FileTail(file);
        assertEquals(List.of(), tail.read());
        byte[] frame = frame(METRIC);
        byte[] second = frame(METRIC.replace("0.83", "0.91"));
        Files.write(file, frame);
        Files.write(file, java.util.Arrays.copyOf(second, 20), StandardOpenOption.APPEND);
        assertEquals(List.of(METRIC), tail.read());
        Files.write(file, java.util.Arrays.copyOfRange(second, 20, second.length), StandardOpenOption.APPEND);
        assertEquals(List.of(METRIC.replace("0.83", "0.91")), tail.read());
        assertEquals(List.of(), tail.read());
    }

    @Test
    public void countsTheLengthInBytesNotCharacters() throws Exception {
        String unicode = METRIC.replace("0.83", "\u00e9t\u00e9");
        Path file = temporary.getRoot().toPath().resolve("metrics");
        Files.write(file, frame(unicode));
        assertEquals(List.of(unicode), new Metrics.FileTail(file).read());
    }

    private static byte[] frame(String json) {
        byte[] data = (json + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] head = String.format("ME%06d", data.length).getBytes(StandardCharsets.US_ASCII);
        byte[] all = new byte[head.length + data.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(data, 0, all, head.length, data.length);
        return all;
    }
}
