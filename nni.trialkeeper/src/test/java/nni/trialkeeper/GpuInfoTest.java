package nni.trialkeeper;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.List;
import java.util.Map;

import org.junit.Test;

public class GpuInfoTest {

    @Test
    @SuppressWarnings("unchecked")
    public void parsesNvidiaSmiCsv() {
        Map<String, Object> report = GpuInfo.parse("0, 37, 16160, 1200, 14960\n1, [N/A], 16160, 0, 16160\n");
        assertEquals("gpu", report.get("kind"));
        assertEquals(2L, report.get("gpuCount"));
        List<Map<String, Object>> gpus = (List<Map<String, Object>>) report.get("gpuInfos");
        assertEquals(37L, gpus.get(0).get("gpuUtil"));
        assertEquals(14960L, gpus.get(0).get("gpuMemFree"));
        assertNull(gpus.get(1).get("gpuUtil"));
    }

    @Test
    public void noNvidiaSmiMeansNoReport() {
        assertNull(GpuInfo.query("/nonexistent/nvidia-smi"));
    }
}
