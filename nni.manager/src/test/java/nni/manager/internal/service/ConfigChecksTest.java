package nni.manager.internal.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;

import org.junit.Test;

import nni.api.experiment.ConfigCheck;
import nni.config.ConfigError;
import nni.config.ValidationReport;

/** The API's config check prints what the loader's report printed, line for line (issue 27). */
public class ConfigChecksTest {

    private static final Path FILE = Path.of("exp", "config.yml");

    @Test
    public void aValidFileWithUncheckedSectionsAndNotesReadsAsTheReport() {
        ValidationReport report = new ValidationReport(FILE, List.of(), List.of("trainingService (platform adl)"),
                List.of("tuner SMAC: runs through NNI's dispatcher (needs the nni package)"));
        ConfigCheck check = ConfigChecks.of(report);
        assertTrue(check.ok());
        assertEquals(report.lines(), check.lines());
        assertEquals(report.toString(), check.toString());
    }

    @Test
    public void problemsReadAsTheReportsWithAndWithoutAKeyPath() {
        ValidationReport report = new ValidationReport(FILE, List.of(
                new ConfigError(FILE, 3, 5, "trainingService.platform", "expected one of local, remote; got \"lokal\""),
                new ConfigError(FILE, 1, 1, "", "no such file")), List.of("trainingService[1] (platform adl)"));
        ConfigCheck check = ConfigChecks.of(report);
        assertFalse(check.ok());
        assertEquals(List.of(FILE + ":3:5: trainingService.platform: expected one of local, remote; got \"lokal\"",
                FILE + ":1:1: no such file"), check.errors());
        assertEquals(report.lines(), check.lines());
    }
}
