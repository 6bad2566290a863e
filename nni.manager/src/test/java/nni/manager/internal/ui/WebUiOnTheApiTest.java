package nni.manager.internal.ui;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

/**
 * The web UI's server side on its way to the nni.ui bundle (issue 27): which of the manager's
 * packages its classes use, read from the compiled classes' constant pools (an import, a fully
 * qualified name and a lambda's target all count), as FacesOnTheApiTest reads the REST routes'.
 * Every use is listed here, so a new one fails this test and each one removed shrinks the list.
 */
public class WebUiOnTheApiTest {

    private static final Pattern INTERNAL = Pattern.compile("nni/manager/internal/([a-z]+)/");

    /** What still reads the engine, each to go as the API gains what it reads. */
    private static final Set<String> LEFT_TO_MOVE = Set.of(
            // the experiments list's constructor for the console, which passes the engine (goes when it passes the service)
            "ExperimentList.class -> config", "ExperimentList.class -> experiment", "ExperimentList.class -> nnictl",
            "ExperimentList.class -> service");

    @Test
    public void theWebUiUsesOnlyTheListedPackagesOfTheManager() throws Exception {
        Path folder = Path.of(UiApiServlet.class.getResource("UiApiServlet.class").toURI()).getParent();
        Set<String> used = new TreeSet<>();
        try (Stream<Path> classes = Files.list(folder)) {
            for (Path file : classes.filter(f -> f.getFileName().toString().endsWith(".class")).toList()) {
                Matcher matcher = INTERNAL.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                while (matcher.find()) {
                    if (!"ui".equals(matcher.group(1))) {
                        used.add(file.getFileName() + " -> " + matcher.group(1));
                    }
                }
            }
        }
        assertFalse("no classes read in " + folder, used.isEmpty());
        Set<String> expected = new TreeSet<>(LEFT_TO_MOVE);
        assertEquals(expected, used);
    }

    /** The classes moved onto the API (the trial table, a trial, the charts, the export, the lookup of experiments, the overview,
     * the machines page, the configuration forms, the servlet) use none of the manager. */
    @Test
    public void theMovedClassesUseNothingOfTheManager() throws Exception {
        Path folder = Path.of(UiApiServlet.class.getResource("UiApiServlet.class").toURI()).getParent();
        for (String name : new String[] {"TrialTable", "TrialDetail", "MetricCharts", "IntermediateCurves", "ExperimentLookup", "ExperimentExport", "ExperimentOverview",
                "MachinesView", "PlatformForms", "UiApiServlet",
                "LiveEvents", "LiveEventsServlet", "Buckets", "Queries", "Json", "ConfigFile", "WebUiAddress"}) {
            try (Stream<Path> classes = Files.list(folder)) {
                var files = classes.filter(f -> f.getFileName().toString().equals(name + ".class")
                        || f.getFileName().toString().startsWith(name + "$")).toList();
                assertFalse("no class " + name + " in " + folder, files.isEmpty());
                for (Path file : files) {
                    Matcher matcher = INTERNAL.matcher(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
                    while (matcher.find()) {
                        assertEquals(file.getFileName() + " uses the manager's " + matcher.group(1), "ui", matcher.group(1));
                    }
                }
            }
        }
    }
}
