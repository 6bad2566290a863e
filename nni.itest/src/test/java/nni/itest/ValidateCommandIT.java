package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.composite;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;

/**
 * {@code nni:validate} in the running runtime: the manager checks the common part, the tuner
 * bundle the classArgs, and each platform bundle its section through the SPI; a platform whose
 * bundle is stopped is reported as not checked, and checked again once it is back. A v1 file is
 * read through nni.config.v1's format service, and named as needing that bundle while it is stopped.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class ValidateCommandIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    @Override
    protected Option additionalOptions() {
        return composite(org.ops4j.pax.exam.CoreOptions.bundle(reactorBundle("nni.ts.remote")),
                org.ops4j.pax.exam.CoreOptions.bundle(reactorBundle("nni.tuners")));
    }

    private static Path write(String text) throws Exception {
        Path dir = scratch("validate");
        Path file = dir.resolve("config.yml");
        Files.writeString(file, text);
        return file;
    }

    @SuppressWarnings("unchecked")
    private List<String> validate(Path file) throws Exception {
        return (List<String>) command("nni:validate " + file);
    }

    private static final String REMOTE = """
            searchSpace: {lr: {_type: loguniform, _value: [0.0001, 0.1]}}
            trialCommand: python3 main.py
            trialConcurrency: 1
            tuner: {name: tpe, classArgs: {optimize_mode: maximize}}
            assessor: {name: Medianstop, classArgs: {start_step: 2}}
            trainingService:
              platform: remote
              machineList:
                - {host: 192.0.2.1, user: u, password: secret-value, port: %s}
            """;

    @Test
    public void validFileIsOk() throws Exception {
        Path file = write(REMOTE.formatted("22"));
        await().atMost(WAIT).until(() -> validate(file), lines -> lines.equals(List.of("OK: " + file)));
    }

    @Test
    public void problemsNameLineKeyAndExpectation() throws Exception {
        Path file = write(REMOTE.formatted("22a").replace("optimize_mode: maximize", "optimize_mode: best"));
        List<String> lines = await().atMost(WAIT).until(() -> validate(file), l -> l.size() == 2);
        assertEquals(file + ":4:47: tuner.classArgs.optimize_mode: expected minimize or maximize, got \"best\"", lines.get(0));
        assertEquals(file + ":9:64: trainingService.machineList[0].port: expected a port number 1-65535, got \"22a\"",
                lines.get(1));
        assertTrue(lines.stream().noneMatch(l -> l.contains("secret-value")));
    }

    @Test
    public void aPlatformWithoutBundleIsNotChecked() throws Exception {
        Path file = write(REMOTE.formatted("22a"));
        Bundle remote = bundle("nni.ts.remote");
        remote.stop();
        try {
            List<String> lines = validate(file);
            assertEquals(List.of("OK: " + file,
                    file + ": trainingService (platform remote): not checked, the platform is not installed"), lines);
        } finally {
            remote.start();
        }
        await().atMost(WAIT).until(() -> validate(file).get(0).contains("expected a port number"));
    }

    private static final String V1_REMOTE = """
            authorName: me
            trialConcurrency: 1
            trainingServicePlatform: remote
            searchSpacePath: ss.json
            tuner: {builtinTunerName: TPE, classArgs: {optimize_mode: maximize}}
            trial: {command: python3 main.py, codeDir: .}
            machineList:
              - {ip: 192.0.2.1, username: u, passwd: secret-value, port: 22a}
            """;

    @Test
    public void aV1FileIsConvertedAndItsProblemsPointIntoIt() throws Exception {
        Path file = write(V1_REMOTE);
        Files.writeString(file.resolveSibling("ss.json"), "{\"lr\": {\"_type\": \"loguniform\", \"_value\": [0.0001, 0.1]}}");
        List<String> lines = await().atMost(WAIT).until(() -> validate(file), l -> l.size() == 1);
        assertEquals(file + ":8:62: trainingService.machineList[0].port: expected a port number 1-65535, got \"22a\"",
                lines.get(0));
        assertTrue(lines.stream().noneMatch(l -> l.contains("secret-value")));
    }

    @Test
    public void withoutTheV1FormatBundleAV1FileNamesTheBundleAndV2FilesStillValidate() throws Exception {
        Path v1 = write(V1_REMOTE);
        Path v2 = write(REMOTE.formatted("22"));
        Bundle format = bundle("nni.config.v1");
        format.stop();
        try {
            assertEquals(List.of(v1 + ":3:26: trainingServicePlatform: this is an NNI v1 experiment file (it has "
                    + "trainingServicePlatform), and no bundle reading v1 files is installed: install bundle nni.config.v1, "
                    + "or write the file in the v2 format"), validate(v1));
            assertEquals(List.of("OK: " + v2), validate(v2));
        } finally {
            format.start();
        }
        await().atMost(WAIT).until(() -> validate(v1).stream().anyMatch(l -> l.contains("expected a port number")));
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName())) {
                return bundle;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }
}
