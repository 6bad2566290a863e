package nni.ts.remote.internal.schedule;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

public class SchedulerTest {

    private static MachineSlots machine(String name, List<Integer> indices, int perGpu, boolean useActive, GpuInfo... gpus) {
        MachineSlots slots = new MachineSlots(name, indices, perGpu, useActive);
        slots.gpus(List.of(gpus));
        return slots;
    }

    @Test
    public void withoutGpusTrialsSpreadOverReachableMachines() {
        MachineSlots a = machine("a", null, 1, false);
        MachineSlots b = machine("b", null, 1, false);
        MachineSlots c = machine("c", null, 1, false);
        c.reachable("connection refused");
        List<MachineSlots> all = List.of(a, b, c);
        assertEquals("a", Scheduler.place(all, 0).placement().orElseThrow().machine().name());
        assertEquals("b", Scheduler.place(all, 0).placement().orElseThrow().machine().name());
        assertEquals("a", Scheduler.place(all, 0).placement().orElseThrow().machine().name());
        a.release(List.of());
        a.release(List.of());
        assertEquals("a", Scheduler.place(all, 0).placement().orElseThrow().machine().name());
    }

    @Test
    public void aMachineThatCanRunNoKeeperIsNeverUsedAndWithOnlySuchMachinesTrialsAreHopeless() {
        MachineSlots a = machine("a", null, 1, false);
        MachineSlots old = machine("old", null, 1, false);
        old.exclude("machine old can run no trial keeper");
        List<MachineSlots> all = List.of(a, old);
        for (int i = 0; i < 3; i++) {
            assertEquals("a", Scheduler.place(all, 0).placement().orElseThrow().machine().name());
        }
        Scheduler.Decision alone = Scheduler.place(List.of(old), 0);
        assertTrue(alone.placement().isEmpty());
        assertTrue(alone.hopeless());
        assertEquals("waiting: needs a machine; old: not used (machine old can run no trial keeper)", alone.whyWaiting());
    }

    @Test
    public void gpusAreGivenOnlyWhenFreeAndTheWaitSaysWhyPerMachine() {
        MachineSlots a = machine("127.0.0.2", null, 1, false, new GpuInfo(0, 0, 0), new GpuInfo(1, 1, 50));
        MachineSlots b = machine("127.0.0.3", null, 1, false, new GpuInfo(0, 0, 0), new GpuInfo(1, 0, 0));
        MachineSlots c = machine("127.0.0.4", null, 1, false);
        c.reachable("connection refused");
        List<MachineSlots> all = List.of(a, b, c);
        Scheduler.Decision first = Scheduler.place(all, 2);
        assertEquals("127.0.0.3", first.placement().orElseThrow().machine().name());
        assertEquals(List.of(0, 1), first.placement().orElseThrow().gpus());
        Scheduler.Decision second = Scheduler.place(all, 2);
        assertTrue(second.placement().isEmpty());
        assertFalse(second.hopeless());
        assertEquals("waiting: needs 2 GPUs; 127.0.0.2: 1 free; 127.0.0.3: 0 free; 127.0.0.4: unreachable (connection refused)",
                second.whyWaiting());
        b.release(List.of(0, 1));
        assertEquals("127.0.0.3", Scheduler.place(all, 2).placement().orElseThrow().machine().name());
    }

    @Test
    public void activeGpusOnlyWithUseActiveGpuAndSharingUpToMaxTrialNumberPerGpu() {
        MachineSlots busy = machine("busy", null, 1, false, new GpuInfo(0, 3, 90));
        assertTrue(Scheduler.place(List.of(busy), 1).placement().isEmpty());
        MachineSlots allowed = machine("allowed", null, 2, true, new GpuInfo(0, 3, 90));
        assertEquals(List.of(0), Scheduler.place(List.of(allowed), 1).placement().orElseThrow().gpus());
        assertEquals(List.of(0), Scheduler.place(List.of(allowed), 1).placement().orElseThrow().gpus());
        assertTrue(Scheduler.place(List.of(allowed), 1).placement().isEmpty());
    }

    @Test
    public void gpuIndicesRestrictTheChoiceAndAMachineTooSmallForeverIsHopeless() {
        MachineSlots a = machine("a", List.of(1), 1, false, new GpuInfo(0, 0, 0), new GpuInfo(1, 0, 0));
        assertEquals(List.of(1), Scheduler.place(List.of(a), 1).placement().orElseThrow().gpus());
        MachineSlots small = machine("small", List.of(1), 1, false, new GpuInfo(0, 0, 0), new GpuInfo(1, 0, 0));
        Scheduler.Decision never = Scheduler.place(List.of(small), 2);
        assertTrue(never.hopeless());
        assertEquals("waiting: needs 2 GPUs; small: has only 1 usable GPU", never.whyWaiting());
        MachineSlots missing = machine("m", List.of(5), 1, false, new GpuInfo(0, 0, 0));
        assertEquals("waiting: needs 1 GPU; m: gpuIndices [5] not reported by nvidia-smi", Scheduler.place(List.of(missing), 1).whyWaiting());
    }
}
