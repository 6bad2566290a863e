package nni.ts.local.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.platform.SessionView;

/**
 * In reuse mode the local platform's trials run in keepers, and the session's machines view comes
 * from the launcher: this machine with its GPUs as nvidia-smi last reported them.
 */
public class ReuseMachinesViewTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void theLauncherShowsThisMachinesGpusAsNvidiaSmiReportsThem() throws Exception {
        Path xml = folder.getRoot().toPath().resolve("gpus.xml");
        Files.writeString(xml, "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>"
                + "<gpu><minor_number>0</minor_number><utilization><gpu_util>87 %</gpu_util></utilization>"
                + "<fb_memory_usage><total>16384 MiB</total><used>1024 MiB</used></fb_memory_usage><processes></processes></gpu>"
                + "<gpu><minor_number>1</minor_number><utilization><gpu_util>3 %</gpu_util></utilization>"
                + "<fb_memory_usage><total>16384 MiB</total><used>12 MiB</used></fb_memory_usage><processes></processes></gpu>"
                + "</nvidia_smi_log>\n");
        Path smi = folder.getRoot().toPath().resolve("nvidia-smi");
        Files.writeString(smi, "#!/bin/sh\ncat " + xml + "\n");
        assertTrue(smi.toFile().setExecutable(true));
        // readings run on the calling thread here: the first view starts one, the second shows it
        LocalEnvironmentLauncher launcher = new LocalEnvironmentLauncher(folder.newFolder("environments").toPath(), 5, null,
                "gpu-box", new GpuReadings(smi.toString(), Runnable::run));

        launcher.machines(Map.of());
        List<SessionView.Machine> machines = launcher.machines(Map.of());

        assertEquals(1, machines.size());
        SessionView.Machine machine = machines.get(0);
        assertEquals("gpu-box", machine.name());
        assertEquals(2, machine.gpus().size());
        SessionView.Gpu first = machine.gpus().get(0);
        assertEquals(0, first.index());
        assertEquals(87, first.utilization().getAsInt());
        assertEquals(1024, first.memoryUsedMiB().getAsLong());
        assertEquals(16384, first.memoryTotalMiB().getAsLong());
        assertEquals(3, machine.gpus().get(1).utilization().getAsInt());
    }

    @Test
    public void withoutReadingsTheLauncherShowsNoMachine() throws Exception {
        LocalEnvironmentLauncher launcher = new LocalEnvironmentLauncher(folder.newFolder("environments").toPath(), 5, null,
                "gpu-box", null);
        assertEquals(List.of(), launcher.machines(Map.of()));
    }
}
