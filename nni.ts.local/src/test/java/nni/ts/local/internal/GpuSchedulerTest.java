package nni.ts.local.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.platform.PlatformException;

/** GPU placement decisions against a fake {@code nvidia-smi -q -x} (a real script run as a process). */
public class GpuSchedulerTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private String fakeNvidiaSmi(String... processesPerGpu) throws IOException {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n<nvidia_smi_log>");
        for (int i = 0; i < processesPerGpu.length; i++) {
            xml.append("<gpu><minor_number>").append(i).append("</minor_number><processes>");
            if (!processesPerGpu[i].isEmpty()) {
                xml.append("<process_info><pid>").append(processesPerGpu[i]).append("</pid></process_info>");
            }
            xml.append("</processes></gpu>");
        }
        xml.append("</nvidia_smi_log>");
        Path script = folder.newFile().toPath();
        Files.writeString(script.resolveSibling(script.getFileName() + ".xml"), xml);
        Files.writeString(script, "#!/bin/sh\ncat " + script + ".xml\n");
        assertTrue(script.toFile().setExecutable(true));
        return script.toString();
    }

    @Test
    public void aTrialThatCannotBePlacedSaysWhy() throws Exception {
        GpuScheduler gpus = new GpuScheduler(fakeNvidiaSmi("", "4711"), null, 1, false);
        GpuScheduler.Placement placement = gpus.place("aaaaa", 2);
        assertFalse(placement.placed());
        assertEquals("waiting: needs 2 GPUs, 1 free; GPU 1 busy (pid 4711)", placement.waitingReason());
    }

    @Test
    public void lowestFreeIndicesFirstAndSharingUpToMaxTrialNumberPerGpu() throws Exception {
        GpuScheduler gpus = new GpuScheduler(fakeNvidiaSmi("", "", ""), null, 2, false);
        assertEquals(List.of(0, 1), gpus.place("aaaaa", 2).indices());
        assertEquals(List.of(0, 1), gpus.place("bbbbb", 2).indices());
        assertEquals(List.of(2), gpus.place("ccccc", 1).indices());
        assertFalse(gpus.place("ddddd", 2).placed());
        gpus.release("aaaaa");
        assertEquals(List.of(0, 1), gpus.place("ddddd", 2).indices());
    }

    @Test
    public void useActiveGpuAndGpuIndices() throws Exception {
        GpuScheduler gpus = new GpuScheduler(fakeNvidiaSmi("12", "13", ""), List.of(1, 2), 1, true);
        assertEquals(List.of(1, 2), gpus.place("aaaaa", 2).indices());
    }

    @Test
    public void impossibleRequestsFail() throws Exception {
        try {
            new GpuScheduler(fakeNvidiaSmi("", ""), null, 1, false).place("aaaaa", 3);
            fail("3 of 2 GPUs accepted");
        } catch (PlatformException e) {
            assertEquals("trialGpuNumber 3 exceeds the 2 GPU(s) this experiment may use", e.getMessage());
        }
        try {
            new GpuScheduler(fakeNvidiaSmi("", ""), List.of(5), 1, false).place("aaaaa", 1);
            fail("a missing GPU index accepted");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().startsWith("gpuIndices: GPU 5 not found"));
        }
        try {
            new GpuScheduler(folder.getRoot() + "/no-such-nvidia-smi", null, 1, false).place("aaaaa", 1);
            fail("a missing nvidia-smi accepted");
        } catch (PlatformException e) {
            assertTrue(e.getMessage(), e.getMessage().contains("cannot be run"));
        }
    }
}
