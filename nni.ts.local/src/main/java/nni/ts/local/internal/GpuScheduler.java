package nni.ts.local.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

import nni.api.platform.PlatformException;

/**
 * Places trials on this machine's GPUs as NNI's local platform does (nni-core §7.2), from a fresh
 * {@code nvidia-smi -q -x} at each decision: a GPU is usable when it is in {@code gpuIndices}
 * (if given), holds fewer than {@code maxTrialNumberPerGpu} of this experiment's trials, and
 * either runs no process or {@code useActiveGpu} is set or it already runs one of our trials; a
 * trial takes the lowest usable indices. Not thread-safe: the session calls it under its lock.
 */
final class GpuScheduler {

    /**
     * One GPU as nvidia-smi reports it.
     *
     * @param utilization    percent, null when not reported
     * @param memoryUsedMiB  null when not reported
     * @param memoryTotalMiB null when not reported
     */
    record Gpu(int index, List<Long> processIds, Integer utilization, Long memoryUsedMiB, Long memoryTotalMiB) {
        Gpu(int index, List<Long> processIds) {
            this(index, processIds, null, null, null);
        }
    }

    /** A decision: the indices to use, or why not now. */
    record Placement(List<Integer> indices, String waitingReason) {
        boolean placed() {
            return indices != null;
        }
    }

    private final String command;
    private final List<Integer> allowed;
    private final int maxTrialsPerGpu;
    private final boolean useActiveGpu;
    private final Map<Integer, Integer> occupancy = new HashMap<>();
    private final Map<String, List<Integer>> placed = new HashMap<>();
    private Consumer<List<Gpu>> readings = gpus -> { };

    GpuScheduler(String command, List<Integer> allowed, int maxTrialsPerGpu, boolean useActiveGpu) {
        this.command = command;
        this.allowed = allowed;
        this.maxTrialsPerGpu = Math.max(1, maxTrialsPerGpu);
        this.useActiveGpu = useActiveGpu;
    }

    /** Reads the section's {@code gpuIndices}, {@code maxTrialNumberPerGpu}, {@code useActiveGpu}. */
    static GpuScheduler fromSection(Map<String, Object> section, String command) {
        List<Integer> indices = null;
        Object given = section.get("gpuIndices");
        if (given instanceof List<?> list) {
            indices = list.stream().map(v -> Integer.parseInt(v.toString().trim())).toList();
        } else if (given instanceof Number number) {
            indices = List.of(number.intValue());
        } else if (given instanceof String text && !text.isBlank()) {
            indices = List.of(text.split(",")).stream().map(v -> Integer.parseInt(v.trim())).toList();
        }
        Object perGpu = section.get("maxTrialNumberPerGpu");
        Object active = section.get("useActiveGpu");
        return new GpuScheduler(command, indices, perGpu instanceof Number n ? n.intValue() : 1,
                Boolean.TRUE.equals(active) || "true".equals(String.valueOf(active)));
    }

    /**
     * @return where the trial runs now, or why it waits
     * @throws PlatformException when it can never run here (more GPUs than there are, no nvidia-smi)
     */
    Placement place(String trialId, int count) throws PlatformException {
        List<Gpu> gpus = query();
        List<Gpu> candidates = gpus.stream().filter(g -> allowed == null || allowed.contains(g.index())).toList();
        if (allowed != null) {
            for (int index : allowed) {
                if (gpus.stream().noneMatch(g -> g.index() == index)) {
                    throw new PlatformException("gpuIndices: GPU " + index + " not found; nvidia-smi reports "
                            + gpus.size() + " GPU(s)");
                }
            }
        }
        if (count > candidates.size()) {
            throw new PlatformException("trialGpuNumber " + count + " exceeds the " + candidates.size()
                    + " GPU(s) this experiment may use");
        }
        List<Integer> free = new ArrayList<>();
        List<String> busy = new ArrayList<>();
        for (Gpu gpu : candidates) {
            int ours = occupancy.getOrDefault(gpu.index(), 0);
            if (ours >= maxTrialsPerGpu) {
                busy.add("GPU " + gpu.index() + " full (" + ours + " trial" + (ours == 1 ? "" : "s") + " of this experiment)");
            } else if (!useActiveGpu && ours == 0 && !gpu.processIds().isEmpty()) {
                busy.add("GPU " + gpu.index() + " busy (pid " + gpu.processIds().stream().map(String::valueOf)
                        .reduce((a, b) -> a + ", " + b).orElse("") + ")");
            } else {
                free.add(gpu.index());
            }
        }
        if (free.size() < count) {
            return new Placement(null, "waiting: needs " + count + " GPU" + (count == 1 ? "" : "s") + ", "
                    + free.size() + " free" + (busy.isEmpty() ? "" : "; " + String.join("; ", busy)));
        }
        List<Integer> chosen = List.copyOf(free.subList(0, count));
        chosen.forEach(index -> occupancy.merge(index, 1, Integer::sum));
        placed.put(trialId, chosen);
        return new Placement(chosen, null);
    }

    /** @param listener told every reading this scheduler takes (the session's machines view shows the last) */
    void onReading(Consumer<List<Gpu>> listener) {
        this.readings = listener;
    }

    /** @return which GPUs each placed trial holds, a copy */
    Map<String, List<Integer>> placements() {
        return Map.copyOf(placed);
    }

    /** Gives back the GPUs a trial held. */
    void release(String trialId) {
        List<Integer> indices = placed.remove(trialId);
        if (indices != null) {
            indices.forEach(index -> occupancy.merge(index, -1, Integer::sum));
        }
    }

    List<Gpu> query() throws PlatformException {
        List<Gpu> gpus;
        try {
            gpus = read(command);
        } catch (PlatformException e) {
            // here the experiment asked for GPUs: say so when nvidia-smi is missing
            throw e.getCause() instanceof IOException ? new PlatformException("trialGpuNumber is set but " + e.getMessage(), e.getCause()) : e;
        }
        readings.accept(gpus);
        return gpus;
    }

    /** @return the GPUs {@code command -q -x} reports now; waits for it (up to 20 s) */
    static List<Gpu> read(String command) throws PlatformException {
        byte[] xml;
        try {
            Process process = new ProcessBuilder(command, "-q", "-x").redirectErrorStream(true).start();
            xml = process.getInputStream().readAllBytes();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new PlatformException(command + " -q -x did not answer within 20 s");
            }
            if (process.exitValue() != 0) {
                throw new PlatformException(command + " -q -x failed with exit code " + process.exitValue() + ": "
                        + new String(xml).strip());
            }
        } catch (IOException e) {
            throw new PlatformException(command + " cannot be run: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PlatformException("interrupted while querying GPUs", e);
        }
        return parse(xml);
    }

    static List<Gpu> parse(byte[] xml) throws PlatformException {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", false);
            factory.setFeature("http://apache.org/xml/features/nonvalidating/load-external-dtd", false);
            factory.setExpandEntityReferences(false);
            Document document = factory.newDocumentBuilder().parse(new ByteArrayInputStream(xml));
            NodeList gpuNodes = document.getDocumentElement().getElementsByTagName("gpu");
            List<Gpu> gpus = new ArrayList<>();
            for (int i = 0; i < gpuNodes.getLength(); i++) {
                Element gpu = (Element) gpuNodes.item(i);
                int index = i;
                NodeList minor = gpu.getElementsByTagName("minor_number");
                if (minor.getLength() > 0 && minor.item(0).getTextContent().trim().matches("\\d+")) {
                    index = Integer.parseInt(minor.item(0).getTextContent().trim());
                }
                List<Long> pids = new ArrayList<>();
                NodeList processes = gpu.getElementsByTagName("process_info");
                for (int p = 0; p < processes.getLength(); p++) {
                    NodeList pid = ((Element) processes.item(p)).getElementsByTagName("pid");
                    pids.add(pid.getLength() > 0 ? Long.parseLong(pid.item(0).getTextContent().trim()) : -1L);
                }
                gpus.add(new Gpu(index, pids, number(gpu, "utilization", "gpu_util"),
                        mebibytes(gpu, "used"), mebibytes(gpu, "total")));
            }
            return gpus;
        } catch (Exception e) {
            throw new PlatformException("cannot read nvidia-smi's XML: " + e.getMessage(), e);
        }
    }

    /** @return {@code <fb_memory_usage><field>1024 MiB</field>}'s number, or null */
    private static Long mebibytes(Element gpu, String field) {
        Integer value = number(gpu, "fb_memory_usage", field);
        return value == null ? null : value.longValue();
    }

    /** @return the leading whole number of {@code <section><field>35 %</field>}, or null when absent or "N/A" */
    private static Integer number(Element gpu, String section, String field) {
        NodeList sections = gpu.getElementsByTagName(section);
        if (sections.getLength() == 0) {
            return null;
        }
        NodeList values = ((Element) sections.item(0)).getElementsByTagName(field);
        if (values.getLength() == 0) {
            return null;
        }
        java.util.regex.Matcher number = java.util.regex.Pattern.compile("^\\s*(\\d+)").matcher(values.item(0).getTextContent());
        return number.find() ? Integer.valueOf(number.group(1)) : null;
    }
}
