package nni.ts.remote.internal.schedule;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;

import org.junit.Test;

import nni.api.platform.SessionView;

/** A remote machine as the machines view shows it: GPUs as last read, the trials on each, why it is not used. */
public class MachineShownTest {

    @Test
    public void eachGpuWithItsFiguresAndTheTrialsPlacedOnIt() {
        MachineSlots slots = new MachineSlots("gpu1:22", null, 1, false);
        slots.gpus(List.of(new GpuInfo(0, 1, 87, 1024L, 16384L), new GpuInfo(1, 0, 3, null, null)));
        Instant readAt = Instant.ofEpochSecond(1_700_000_000L);

        SessionView.Machine machine = MachineShown.of(slots, readAt, Map.of(0, List.of("aaaaa", "bbbbb")));

        assertEquals("gpu1:22", machine.name());
        assertEquals(readAt, machine.readAt().orElseThrow());
        assertTrue(machine.problem().isEmpty());
        SessionView.Gpu first = machine.gpus().get(0);
        assertEquals(OptionalInt.of(87), first.utilization());
        assertEquals(OptionalLong.of(1024), first.memoryUsedMiB());
        assertEquals(OptionalLong.of(16384), first.memoryTotalMiB());
        assertEquals(List.of("aaaaa", "bbbbb"), first.trials());
        SessionView.Gpu second = machine.gpus().get(1);
        assertEquals(OptionalLong.empty(), second.memoryTotalMiB());
        assertEquals(List.of(), second.trials());
    }

    @Test
    public void anUnreachableMachineSaysWhyAndAnUnreadOneHasNoGpus() {
        MachineSlots slots = new MachineSlots("gpu2:22", null, 1, false);
        slots.reachable("connection refused");
        SessionView.Machine machine = MachineShown.of(slots, null, Map.of());
        assertEquals("unreachable: connection refused", machine.problem().orElseThrow());
        assertTrue(machine.readAt().isEmpty());
        assertEquals(List.of(), machine.gpus());
    }
}
