package nni.ts.dlts.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.config.ConfigProblem;
import nni.api.config.SectionCheck;
import nni.api.platform.PlatformException;

/** The rules of a {@code platform: dlts} section, and where its credentials come from. */
public class DltsSectionTest {

    private static Map<String, Object> section() {
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "dlts");
        section.put("trialCommand", "python3 mnist.py");
        section.put("trialGpuNumber", 1);
        section.put("dashboard", "http://dlts.example.com");
        section.put("image", "msranni/nni:latest");
        return section;
    }

    @Test
    public void credentialsComeFromTheSectionElseFromDltsEnvironmentVariables() throws Exception {
        Map<String, Object> section = section();
        section.put("password", "from-file");
        SectionCheck check = DltsSection.check(section, Path.of("."));
        assertEquals(List.of(), check.problems());
        assertEquals(List.of("password"), check.secrets());
        Map<String, String> environment = Map.of("DLWS_USER_EMAIL", "bob@example.com", "DLTS_JOB_TOKEN", "from-env", "DLWS_VC_NAME", "vc1");
        DltsSection.Settings settings = DltsSection.settings(check.section(), environment::get);
        assertEquals("http://dlts.example.com/", settings.dashboard());
        assertEquals(".default", settings.cluster());
        assertEquals("bob@example.com", settings.email());
        assertEquals("from-file", settings.password());
        assertEquals("vc1", settings.team());
        assertEquals("DLTS at http://dlts.example.com/ (bob@example.com, team vc1)", settings.service());
    }

    @Test
    public void theManagersDltsJobExposesItsPortOnlyWithoutNniManagerIp() throws Exception {
        Map<String, String> inJob = Map.of("DLWS_USER_EMAIL", "bob@example.com", "DLTS_JOB_TOKEN", "t", "DLWS_VC_NAME", "vc1",
                "DLTS_JOB_ID", "job-42");
        Map<String, Object> section = new LinkedHashMap<>(DltsSection.check(section(), Path.of(".")).section());
        assertEquals("job-42", DltsSection.settings(section, inJob::get).exposingJob());
        section.put("nniManagerIp", "10.0.0.5");
        assertNull(DltsSection.settings(section, inJob::get).exposingJob());
        section.remove("nniManagerIp");
        Map<String, String> outside = new LinkedHashMap<>(inJob);
        outside.remove("DLTS_JOB_ID");
        assertNull(DltsSection.settings(section, outside::get).exposingJob());
    }

    @Test
    public void missingCredentialsNameTheFieldAndTheVariable() {
        try {
            DltsSection.settings(DltsSection.check(section(), Path.of(".")).section(), name -> null);
            fail();
        } catch (PlatformException e) {
            assertEquals("dlts: not set: email (or the environment variable DLWS_USER_EMAIL); password (or the environment"
                    + " variable DLTS_JOB_TOKEN); team (or the environment variable DLWS_VC_NAME)", e.getMessage());
        }
    }

    @Test
    public void theDashboardMustBeAUrlAndGpusAndImageAreRequired() {
        Map<String, Object> section = section();
        section.put("dashboard", "dlts.example.com");
        section.remove("trialGpuNumber");
        section.remove("image");
        List<String> problems = DltsSection.check(section, Path.of(".")).problems().stream().map(ConfigProblem::toString).toList();
        assertTrue(problems.toString(), problems.contains("dashboard: expected the dashboard's URL (http:// or https://), got \"dlts.example.com\""));
        assertTrue(problems.toString(), problems.contains("trialGpuNumber: trialGpuNumber (v1: trial.gpuNum) is required on DLTS"));
        assertTrue(problems.toString(), problems.contains("image: image is required"));
    }
}
