package nni.shell.internal.command;

import static org.junit.Assert.assertEquals;

import java.util.List;

import org.junit.Test;

import nni.api.experiment.AlgorithmView;
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

    /** nni:algorithms: a row per name, tuners and assessors first, then each dispatcher's names; the footer says what runs where. */
    @Test
    public void anAlgorithmIsARowPerNameAndTheFooterSaysWhereTheyRun() {
        List<AlgorithmView> installed = List.of(
                AlgorithmView.builder(AlgorithmView.TUNER).names(List.of("TPE")).bundle("nni.tuners").version("1.0.0").build(),
                AlgorithmView.builder(AlgorithmView.ASSESSOR).names(List.of("Medianstop")).bundle("nni.tuners").version("1.0.0").build(),
                AlgorithmView.builder(AlgorithmView.NNI_DISPATCHER).names(List.of("BOHB", "SMAC")).bundle("nni.dispatcher")
                        .version("1.0.0").build());
        assertEquals("TYPE            NAME        BUNDLE          VERSION\n"
                + "tuner           TPE         nni.tuners      1.0.0\n"
                + "assessor        Medianstop  nni.tuners      1.0.0\n"
                + "NNI dispatcher  BOHB        nni.dispatcher  1.0.0\n"
                + "NNI dispatcher  SMAC        nni.dispatcher  1.0.0\n"
                + "advisors: none installed in Java (bundle nni.tuners has Hyperband and BOHB)\n"
                + "the rows \"NNI dispatcher\" run through NNI's dispatcher, with python3 and NNI's nni package\n",
                new PlatformCommands(List::of, () -> installed, null).algorithms());
        assertEquals("TYPE  NAME  BUNDLE  VERSION\n"
                + "advisors (rows \"advisor\") run in Java; implementation: python runs NNI's instead\n"
                + "NNI's dispatcher is not installed (bundle nni.dispatcher)\n",
                new PlatformCommands(List::of, () -> List.of(AlgorithmView.builder(AlgorithmView.ADVISOR).build()), null).algorithms());
    }
}
