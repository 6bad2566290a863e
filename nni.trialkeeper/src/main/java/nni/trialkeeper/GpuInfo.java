package nni.trialkeeper;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The worker's GPUs as {@code nvidia-smi} reports them, sent by a runner as a {@code gpu} report
 * (NNI's {@code GI} command) so that the manager can place trials.
 */
final class GpuInfo {

    static final List<String> QUERY = List.of("--query-gpu=index,utilization.gpu,memory.total,memory.used,memory.free",
            "--format=csv,noheader,nounits");

    private GpuInfo() {
    }

    /** @return the {@code gpu} report, or null when there is no working {@code nvidia-smi} */
    static Map<String, Object> query(String nvidiaSmi) {
        try {
            List<String> command = new ArrayList<>(List.of(nvidiaSmi));
            command.addAll(QUERY);
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(10, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                return null;
            }
            return parse(output);
        } catch (IOException | IllegalArgumentException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** Parses {@code index, util %, total MiB, used MiB, free MiB} lines. */
    static Map<String, Object> parse(String csv) {
        List<Object> gpus = new ArrayList<>();
        for (String line : csv.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] fields = line.split(",");
            if (fields.length < 5) {
                throw new IllegalArgumentException("unexpected nvidia-smi line: " + line);
            }
            gpus.add(TrialProcess.ordered("index", number(fields[0]), "gpuUtil", number(fields[1]),
                    "gpuMemTotal", number(fields[2]), "gpuMemUsed", number(fields[3]), "gpuMemFree", number(fields[4])));
        }
        return TrialProcess.ordered("kind", "gpu", "time", System.currentTimeMillis(), "gpuCount", (long) gpus.size(), "gpuInfos", gpus);
    }

    private static Long number(String field) {
        try {
            return Long.valueOf(field.trim());
        } catch (NumberFormatException e) {
            return null; // "[N/A]" on some boards
        }
    }
}
