package nni.ts.remote.internal.schedule;

import java.time.Instant;
import java.util.List;
import java.util.Map;

import nni.api.platform.SessionView;

/** One machine as the session's view shows it: its GPUs as last read, the trials on each, or why it cannot be used. */
public final class MachineShown {

    private MachineShown() {
    }

    /**
     * @param readAt      when nvidia-smi was last read there, or null when it never was
     * @param trialsOnGpu the trials placed on each GPU index
     */
    public static SessionView.Machine of(MachineSlots slots, Instant readAt, Map<Integer, List<String>> trialsOnGpu) {
        SessionView.MachineBuilder machine = SessionView.Machine.builder(slots.name()).readAt(readAt);
        if (slots.excludedReason() != null) {
            machine.problem("not used: " + slots.excludedReason());
        } else if (slots.unreachableReason() != null) {
            machine.problem("unreachable: " + slots.unreachableReason());
        }
        List<GpuInfo> gpus = slots.seen();
        if (gpus != null) {
            for (GpuInfo gpu : gpus) {
                SessionView.GpuBuilder shown = SessionView.Gpu.builder(gpu.index()).utilization(gpu.utilization());
                if (gpu.memoryUsedMiB() != null && gpu.memoryTotalMiB() != null) {
                    shown.memoryMiB(gpu.memoryUsedMiB(), gpu.memoryTotalMiB());
                }
                trialsOnGpu.getOrDefault(gpu.index(), List.of()).forEach(shown::trial);
                machine.gpu(shown.build());
            }
        }
        return machine.build();
    }
}
