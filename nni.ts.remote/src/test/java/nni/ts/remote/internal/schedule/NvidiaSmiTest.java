package nni.ts.remote.internal.schedule;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

public class NvidiaSmiTest {

    /** The shape of {@code nvidia-smi -q -x}, trimmed to what matters, with its DOCTYPE naming a DTD that is not there. */
    static String xml(int... processesPerGpu) {
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
                + "<nvidia_smi_log>\n<driver_version>535.54.03</driver_version>\n<attached_gpus>" + processesPerGpu.length + "</attached_gpus>\n");
        for (int i = 0; i < processesPerGpu.length; i++) {
            xml.append("<gpu id=\"00000000:0").append(i).append(":00.0\">\n<product_name>Tesla T4</product_name>\n<minor_number>")
                    .append(i).append("</minor_number>\n<utilization>\n<gpu_util>").append(processesPerGpu[i] * 40).append(" %</gpu_util>\n"
                            + "<memory_util>0 %</memory_util>\n</utilization>\n<processes>\n");
            for (int p = 0; p < processesPerGpu[i]; p++) {
                xml.append("<process_info><pid>").append(1000 + p).append("</pid><type>C</type><process_name>python</process_name>"
                        + "<used_memory>100 MiB</used_memory></process_info>\n");
            }
            xml.append("</processes>\n</gpu>\n");
        }
        return xml.append("</nvidia_smi_log>\n").toString();
    }

    @Test
    public void readsIndexProcessesAndUtilizationOfEveryGpu() {
        assertEquals(List.of(new GpuInfo(0, 0, 0), new GpuInfo(1, 2, 80), new GpuInfo(2, 1, 40)), NvidiaSmi.parse(xml(0, 2, 1)));
    }

    @Test
    public void readsMemoryUsedAndTotalWhenReported() {
        String xml = "<nvidia_smi_log><gpu id=\"0\"><minor_number>0</minor_number><fb_memory_usage><total>16384 MiB</total>"
                + "<reserved>0 MiB</reserved><used>1024 MiB</used><free>15360 MiB</free></fb_memory_usage>"
                + "<utilization><gpu_util>87 %</gpu_util></utilization><processes></processes></gpu>"
                + "<gpu id=\"1\"><minor_number>1</minor_number><fb_memory_usage><total>N/A</total><used>N/A</used></fb_memory_usage>"
                + "</gpu></nvidia_smi_log>";
        assertEquals(List.of(new GpuInfo(0, 0, 87, 1024L, 16384L), new GpuInfo(1, 0, 0, null, null)), NvidiaSmi.parse(xml));
    }

    @Test
    public void noGpusIsAnEmptyList() {
        assertEquals(List.of(), NvidiaSmi.parse(xml()));
    }

    @Test
    public void somethingElseIsRejectedWithAReason() {
        IllegalArgumentException notXml = assertThrows(IllegalArgumentException.class, () -> NvidiaSmi.parse("NVIDIA-SMI has failed"));
        assertTrue(notXml.getMessage(), notXml.getMessage().startsWith("nvidia-smi output is not XML"));
        IllegalArgumentException wrongRoot = assertThrows(IllegalArgumentException.class, () -> NvidiaSmi.parse("<html/>"));
        assertTrue(wrongRoot.getMessage(), wrongRoot.getMessage().contains("<html>"));
    }
}
