package nni.ts.remote.internal.schedule;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the scheduler knows of one machine: whether it can be reached, its GPUs (from the last
 * {@code nvidia-smi}), and what the experiment has placed on it. Not thread-safe: the scheduler
 * guards it.
 */
public final class MachineSlots {

    private final String name;
    private final List<Integer> gpuIndices;
    private final int maxTrialsPerGpu;
    private final boolean useActiveGpu;
    private final Map<Integer, Integer> reservations = new HashMap<>();
    private List<GpuInfo> gpus;
    private String unreachable;
    private String excluded;
    private int placed;

    /**
     * @param name            how messages name the machine
     * @param gpuIndices      the GPUs trials may use, or null for all
     * @param maxTrialsPerGpu trials sharing one GPU at most ({@code maxTrialNumberPerGpu})
     * @param useActiveGpu    whether a GPU other processes use may be given to a trial
     */
    public MachineSlots(String name, List<Integer> gpuIndices, int maxTrialsPerGpu, boolean useActiveGpu) {
        this.name = name;
        this.gpuIndices = gpuIndices == null ? null : List.copyOf(gpuIndices);
        this.maxTrialsPerGpu = maxTrialsPerGpu;
        this.useActiveGpu = useActiveGpu;
    }

    public String name() {
        return name;
    }

    /** @param reason why the machine cannot be reached, or null when it can */
    public void reachable(String reason) {
        this.unreachable = reason;
    }

    public String unreachableReason() {
        return unreachable;
    }

    /** @param reason why no trial may ever be placed here (it can run no trial keeper) */
    public void exclude(String reason) {
        this.excluded = reason;
    }

    /** @return why no trial may ever be placed here, or null */
    public String excludedReason() {
        return excluded;
    }

    public void gpus(List<GpuInfo> seen) {
        this.gpus = List.copyOf(seen);
    }

    /** @return the GPUs the last nvidia-smi reported, or null when it was not asked yet */
    public List<GpuInfo> seen() {
        return gpus;
    }

    public int placed() {
        return placed;
    }

    /** @return the GPUs trials may use here (null when nvidia-smi was not asked yet) */
    List<GpuInfo> usable() {
        if (gpus == null) {
            return null;
        }
        return gpus.stream().filter(g -> gpuIndices == null || gpuIndices.contains(g.index())).toList();
    }

    /** @return the GPUs a new trial could get now */
    List<Integer> free() {
        List<Integer> free = new ArrayList<>();
        for (GpuInfo gpu : usable()) {
            int taken = reservations.getOrDefault(gpu.index(), 0);
            boolean usable = taken == 0 ? gpu.activeProcesses() == 0 || useActiveGpu : taken < maxTrialsPerGpu;
            if (usable) {
                free.add(gpu.index());
            }
        }
        // least shared first, so that trials spread before they share
        free.sort((a, b) -> Integer.compare(reservations.getOrDefault(a, 0), reservations.getOrDefault(b, 0)));
        return free;
    }

    /** @return gpuIndices that nvidia-smi did not report, or an empty list */
    List<Integer> missingIndices() {
        if (gpuIndices == null || gpus == null) {
            return List.of();
        }
        return gpuIndices.stream().filter(i -> gpus.stream().noneMatch(g -> g.index() == i)).toList();
    }

    void reserve(List<Integer> indices) {
        placed++;
        indices.forEach(i -> reservations.merge(i, 1, Integer::sum));
    }

    /** Gives back what one placement took. */
    public void release(List<Integer> indices) {
        placed = Math.max(0, placed - 1);
        indices.forEach(i -> reservations.computeIfPresent(i, (k, n) -> n <= 1 ? null : n - 1));
    }
}
