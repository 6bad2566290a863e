package nni.manager.internal.command;

import static org.junit.Assert.assertEquals;

import java.util.List;

import org.junit.Test;

import nni.api.experiment.PlatformView;

/** nni:platforms: one line per platform in the header's columns, then one indented line per session that says how its trials report. */
public class PlatformCommandsTest {

    @Test
    public void aPlatformIsOneLineInColumnsThenItsSessionsReports() {
        PlatformView kubeflow = PlatformView.builder("kubeflow").bundle("nni.ts.kubeflow").version("1.0.0.202611")
                .state(PlatformView.SHADOWED).sessions(1).runsTrials(false)
                .reports(List.of(PlatformView.SessionReports.of("exp00001", nni.api.platform.ReportChannel.of("files", "no address the workers reach")))).build();
        assertEquals("kubeflow             nni.ts.kubeflow              1.0.0.202611   shadowed  1        no (validates its section only)\n"
                + "  experiment exp00001 reports over files: no address the workers reach", PlatformCommands.line(kubeflow));
        PlatformView local = PlatformView.builder("local").bundle("nni.ts.local").version("1.0.0").build();
        assertEquals("local                nni.ts.local                 1.0.0          active    0        yes", PlatformCommands.line(local));
    }
}
