package nni.ts.remote.internal.schedule;

import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Chooses the machine for a trial (or an environment): among the reachable machines that have the
 * GPUs it needs free, the one with the fewest placements (so trials spread over machines). When
 * none fits it says why, machine by machine. Pure logic over {@link MachineSlots}; the caller
 * refreshes them and guards them.
 */
public final class Scheduler {

    /** Where a trial goes: the machine and the GPUs it got (empty when it asked for none). */
    public record Placement(MachineSlots machine, List<Integer> gpus) {
    }

    /** The outcome of one attempt: a placement, or why there is none and whether waiting can help. */
    public record Decision(Optional<Placement> placement, String whyWaiting, boolean hopeless) {
    }

    private Scheduler() {
    }

    /**
     * @param machines  the machines in configuration order
     * @param gpuNumber GPUs the trial needs ({@code trialGpuNumber}, 0 for none)
     */
    public static Decision place(List<MachineSlots> machines, int gpuNumber) {
        List<MachineSlots> reachable = machines.stream().filter(m -> m.unreachableReason() == null && m.excludedReason() == null)
                .sorted(Comparator.comparingInt(MachineSlots::placed)).toList();
        for (MachineSlots machine : reachable) {
            if (gpuNumber <= 0) {
                machine.reserve(List.of());
                return new Decision(Optional.of(new Placement(machine, List.of())), "", false);
            }
            if (machine.usable() == null) {
                continue;
            }
            List<Integer> free = machine.free();
            if (free.size() >= gpuNumber) {
                List<Integer> chosen = free.subList(0, gpuNumber).stream().sorted().toList();
                machine.reserve(chosen);
                return new Decision(Optional.of(new Placement(machine, chosen)), "", false);
            }
        }
        String why = machines.stream().map(m -> m.name() + ": " + state(m, gpuNumber)).collect(Collectors.joining("; "));
        String need = gpuNumber <= 0 ? "needs a machine" : "needs " + gpuNumber + " GPU" + (gpuNumber == 1 ? "" : "s");
        List<MachineSlots> candidates = machines.stream().filter(m -> m.excludedReason() == null).toList();
        boolean anyUnknown = candidates.stream().anyMatch(m -> m.unreachableReason() != null || (gpuNumber > 0 && m.usable() == null));
        boolean hopeless = candidates.isEmpty() || (!anyUnknown && gpuNumber > 0
                && candidates.stream().allMatch(m -> m.usable().size() < gpuNumber || !m.missingIndices().isEmpty()));
        return new Decision(Optional.empty(), "waiting: " + need + "; " + why, hopeless);
    }

    private static String state(MachineSlots machine, int gpuNumber) {
        if (machine.excludedReason() != null) {
            return "not used (" + machine.excludedReason() + ")";
        }
        if (machine.unreachableReason() != null) {
            return "unreachable (" + machine.unreachableReason() + ")";
        }
        if (gpuNumber <= 0) {
            return "free";
        }
        if (machine.usable() == null) {
            return "GPUs not known yet";
        }
        if (!machine.missingIndices().isEmpty()) {
            return "gpuIndices " + machine.missingIndices() + " not reported by nvidia-smi";
        }
        if (machine.usable().size() < gpuNumber) {
            return "has only " + machine.usable().size() + " usable GPU" + (machine.usable().size() == 1 ? "" : "s");
        }
        return machine.free().size() + " free";
    }
}
