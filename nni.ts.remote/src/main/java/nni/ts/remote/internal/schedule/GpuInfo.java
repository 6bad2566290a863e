package nni.ts.remote.internal.schedule;

/**
 * One GPU as {@code nvidia-smi -q -x} describes it.
 *
 * @param index           the GPU's index ({@code minor_number}), as {@code CUDA_VISIBLE_DEVICES} names it
 * @param activeProcesses processes using it now
 * @param utilization     GPU utilization in percent
 * @param memoryUsedMiB   memory in use, or null when not reported
 * @param memoryTotalMiB  memory in all, or null when not reported
 */
public record GpuInfo(int index, int activeProcesses, int utilization, Long memoryUsedMiB, Long memoryTotalMiB) {

    public GpuInfo(int index, int activeProcesses, int utilization) {
        this(index, activeProcesses, utilization, null, null);
    }
}
