package nni.manager.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.Test;

import nni.manager.internal.service.ExperimentServiceComponent;
import nni.manager.internal.console.ConsoleServlet;
import nni.manager.internal.logs.ExperimentLogFiles;
import nni.manager.internal.nnictl.ExperimentRegistry;
import nni.manager.internal.nnictl.NnictlBridge;

/**
 * The faces already moved onto the exported experiment API (issue 27) stay there: none of their
 * classes, nested ones included, refers to the engine's packages (experiment, store, registry,
 * keeper protocol, the service's implementation). Read from the compiled classes' constant pools,
 * where every class a class uses is named, so an import, a fully qualified name or a lambda's target
 * all count. Faces still to move are not listed; each one moved joins the list. NNI's REST routes
 * have left for nni.web, whose own FacesOnTheApiTest keeps them off the manager, and the web UI's
 * server side for nni.ui, whose WebUiOnTheApiTest does. The console is
 * checked as a whole package, against every other package of the manager.
 */
public class FacesOnTheApiTest {

    private static final Set<String> ENGINE = Set.of("experiment", "store", "registry", "report", "reuse", "pack", "service");
    private static final Pattern INTERNAL = Pattern.compile("nni/manager/internal/([a-z]+)/");
    private static final Pattern MANAGER_CLASS = Pattern.compile("nni/manager/internal/([a-z]+)/([A-Za-z0-9_$]+)");

    /**
     * What the console uses of the manager outside its package: the faces it will share a shell
     * bundle with (issue 27's {@code nni.shell}), the client's terminal width the commands read and
     * the launcher's command it answers; they move with it.
     */
    private static final Set<String> CONSOLE_SHELL_FELLOWS = Set.of("command/ClientSide", "launch/LaunchCommand");

    private static final List<String> ON_THE_API = List.of(NnictlBridge.class.getName(), ExperimentRegistry.class.getName(),
            "nni.manager.internal.nnictl.NnictlRegistryFile", "nni.manager.internal.nnictl.PidSentinel", ExperimentLogFiles.class.getName());

    @Test
    public void facesOnTheApiUseNoneOfTheEnginesPackages() throws Exception {
        for (String name : ON_THE_API) {
            Class<?> face = Class.forName(name);
            assertEquals(face.getName() + " uses the engine's internals", Set.of(), enginePackagesUsedBy(face));
        }
    }

    /** The console's servlet, its completions and its client command run on the experiment API. */
    @Test
    public void theConsoleUsesOnlyTheApiAndItsShellFellows() throws Exception {
        Path console = Path.of(ConsoleServlet.class.getResource("ConsoleServlet.class").toURI()).getParent();
        assertEquals("the console uses the engine's internals", Set.of(), enginePackagesUsedBy(console, name -> true));
        assertEquals("classes of the manager's other packages the console uses", CONSOLE_SHELL_FELLOWS,
                managerClassesUsedBy(console, "console"));
    }

    /** The check sees a use where there is one: the API's implementation uses the engine. */
    @Test
    public void theCheckSeesAClassThatUsesTheEngine() throws Exception {
        assertFalse(enginePackagesUsedBy(ExperimentServiceComponent.class).isEmpty());
    }

    private static Set<String> enginePackagesUsedBy(Class<?> top) throws IOException, URISyntaxException {
        Path folder = Path.of(top.getResource(top.getSimpleName() + ".class").toURI()).getParent();
        return enginePackagesUsedBy(folder, name -> name.equals(top.getSimpleName() + ".class")
                || name.startsWith(top.getSimpleName() + "$"));
    }

    /** @return "package/Class" for each class of the manager outside {@code own} that a class file in the folder uses */
    private static Set<String> managerClassesUsedBy(Path folder, String own) throws IOException {
        Set<String> used = new TreeSet<>();
        try (Stream<Path> classes = Files.list(folder)) {
            for (Path file : classes.filter(f -> f.getFileName().toString().endsWith(".class")).toList()) {
                Matcher matcher = MANAGER_CLASS.matcher(constantPool(file));
                while (matcher.find()) {
                    if (!matcher.group(1).equals(own)) {
                        used.add(matcher.group(1) + "/" + matcher.group(2));
                    }
                }
            }
        }
        return used;
    }

    private static String constantPool(Path classFile) throws IOException {
        try (InputStream in = Files.newInputStream(classFile)) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /** @return "Class.class -> package" for each engine package a class file in the folder, of those named, uses */
    private static Set<String> enginePackagesUsedBy(Path folder, Predicate<String> named) throws IOException {
        Set<String> used = new TreeSet<>();
        try (Stream<Path> classes = Files.list(folder)) {
            for (Path file : classes.filter(f -> f.getFileName().toString().endsWith(".class")
                    && named.test(f.getFileName().toString())).toList()) {
                Matcher matcher = INTERNAL.matcher(constantPool(file));
                while (matcher.find()) {
                    if (ENGINE.contains(matcher.group(1))) {
                        used.add(file.getFileName() + " -> " + matcher.group(1));
                    }
                }
            }
        }
        return used;
    }
}
