package nni.ts.local.internal;

import static org.junit.Assert.assertEquals;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Reading NNI's metric file protocol and stdout markers incrementally, as a trial writes them. */
public class MetricTailTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Path directory;
    private final List<String> reported = new ArrayList<>();
    private MetricTail tail;

    @Before
    public void setUp() throws Exception {
        directory = folder.getRoot().toPath();
        Files.createDirectories(directory.resolve(".nni"));
        tail = new MetricTail("Ab1cD", directory, (trial, line) -> {
            if (line.contains("reject")) {
                throw new IllegalArgumentException("not a metric");
            }
            reported.add(trial + " " + line);
        });
    }

    private void append(String file, String text) throws Exception {
        Files.writeString(directory.resolve(file), text, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
    }

    private static String frame(String json) {
        String data = json + "\n";
        return "ME" + String.format("%06d", data.getBytes(StandardCharsets.UTF_8).length) + data;
    }

    @Test
    public void framesSplitAcrossWritesAreReadWhenComplete() throws Exception {
        String first = frame("{\"n\": \"é1\"}");
        append(".nni/metrics", first.substring(0, 5));
        tail.read(false);
        assertEquals(List.of(), reported);
        append(".nni/metrics", first.substring(5) + frame("{\"n\": 2}").substring(0, 12));
        tail.read(false);
        assertEquals(List.of("Ab1cD {\"n\": \"é1\"}"), reported);
        append(".nni/metrics", frame("{\"n\": 2}").substring(12));
        tail.read(false);
        assertEquals(List.of("Ab1cD {\"n\": \"é1\"}", "Ab1cD {\"n\": 2}"), reported);
    }

    @Test
    public void damagedFramesAndRejectedLinesAreSkippedWithoutLosingNeighbours() throws Exception {
        append(".nni/metrics", frame("{\"n\": 1}") + "MEx12345garbage" + frame("{\"reject\": 1}") + frame("{\"n\": 3}"));
        tail.read(true);
        assertEquals(List.of("Ab1cD {\"n\": 1}", "Ab1cD {\"n\": 3}"), reported);
    }

    @Test
    public void stdoutMarkersAnywhereInALineAndTheLastLineAtTheEnd() throws Exception {
        append("stdout", "plain log\nx NNISDK_MEb'{\"n\": 1, \"s\": \"it's\"}'\nNNISDK_MEb'{\"n\": 2}'");
        tail.read(false);
        // between the first marker and the last quote of the line
        assertEquals(List.of("Ab1cD {\"n\": 1, \"s\": \"it's\"}"), reported);
        tail.read(true);
        assertEquals(List.of("Ab1cD {\"n\": 1, \"s\": \"it's\"}", "Ab1cD {\"n\": 2}"), reported);
    }
}
