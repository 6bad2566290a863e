package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.config.GivenConfig;
import nni.config.ExperimentConfig;

/**
 * The config file as the user gave it is kept in a new experiment's folder, owner-only, with every
 * secret masked as the stored definition masks it, and is read back as it was kept; an experiment
 * created without it (before it was kept) has none.
 */
public class GivenConfigTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void keptAtCreateWithItsSecretsMasked() throws Exception {
        Path work = folder.newFolder("work").toPath();
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), work);
        ExperimentConfig plain = setup.config();
        Map<String, Object> service = Map.of("platform", "remote", "machineList", List.of(Map.of("host", "gpu1",
                "password", "s3cret-pw")));
        ExperimentConfig config = new ExperimentConfig(plain.experimentName(), plain.searchSpace(), plain.trialCommand(),
                plain.trialCodeDirectory(), plain.trialConcurrency(), null, null, null, null, null, false, "info", work,
                plain.tuner(), null, List.of(service), Map.of("trainingService", service),
                List.of("trainingService.machineList[0].password"));
        String text = """
                # my experiment, as I wrote it
                trainingService:
                  platform: remote
                  machineList:
                    - host: gpu1
                      password: "s3cret-pw"   # not for the web UI
                """;
        Path file = Files.writeString(folder.getRoot().toPath().resolve("mine.yml"), text);

        ExperimentFiles.Opened opened = ExperimentFiles.create("given001", config, GivenConfig.read(file));
        opened.store().close();

        Path kept = opened.directory().resolve("given").resolve("mine.yml");
        assertEquals(text.replace("s3cret-pw", ExperimentConfig.MASK), Files.readString(kept));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(kept)));
        assertEquals(Optional.of(new GivenConfig("mine.yml", text.replace("s3cret-pw", ExperimentConfig.MASK))),
                GivenConfig.stored(opened.directory()));
        assertTrue(Files.readString(opened.directory().resolve(SecretsFile.NAME)).contains("s3cret-pw"));
    }

    /** A secret the text does not show as such (YAML escapes, a folded string) is masked too: its whole value. */
    @Test
    public void secretsWrittenWithYamlEscapesOrFoldedAreMaskedWhole() throws Exception {
        Path work = folder.newFolder("work").toPath();
        ExperimentConfig plain = new Experiments(folder.newFolder("code").toPath(), work).config();
        List<Map<String, Object>> machines = List.of(Map.of("host", "gpu1", "password", "s3cret-pw"),
                Map.of("host", "gpu2", "password", "long secret phrase"), Map.of("host", "gpu3", "password", "plain-pw"));
        Map<String, Object> service = Map.of("platform", "remote", "machineList", machines);
        ExperimentConfig config = new ExperimentConfig(plain.experimentName(), plain.searchSpace(), plain.trialCommand(),
                plain.trialCodeDirectory(), plain.trialConcurrency(), null, null, null, null, null, false, "info", work,
                plain.tuner(), null, List.of(service), Map.of("trainingService", service),
                List.of("trainingService.machineList[0].password", "trainingService.machineList[1].password",
                        "trainingService.machineList[2].password"));
        String text = String.join("\n",
                "trainingService:",
                "  platform: remote",
                "  machineList:",
                "    - host: gpu1",
                "      password: \"s3cr\\u0065t-pw\"   # escaped",
                "    - host: gpu2",
                "      password: >-",
                "        long secret",
                "        phrase",
                "    - host: gpu3",
                "      password: plain-pw",
                "");

        String masked = new GivenConfig("mine.yml", text).masked(config).text();

        for (String secret : List.of("s3cr", "long secret", "phrase", "plain-pw")) {
            assertFalse("the kept text shows " + secret + ":\n" + masked, masked.contains(secret));
        }
        assertTrue(masked, masked.contains("# escaped"));
        Map<?, ?> read = new org.yaml.snakeyaml.Yaml().load(masked);
        List<?> kept = (List<?>) ((Map<?, ?>) read.get("trainingService")).get("machineList");
        for (int i = 0; i < 3; i++) {
            assertEquals("machine " + i + " in\n" + masked, ExperimentConfig.MASK, ((Map<?, ?>) kept.get(i)).get("password"));
            assertEquals("gpu" + (i + 1), ((Map<?, ?>) kept.get(i)).get("host"));
        }
    }

    @Test
    public void anExperimentCreatedWithoutItHasNone() throws Exception {
        Experiments setup = new Experiments(folder.newFolder("code").toPath(), folder.newFolder("work").toPath());
        ExperimentFiles.Opened opened = ExperimentFiles.create("given002", setup.config(), null);
        opened.store().close();
        assertFalse(Files.exists(opened.directory().resolve("given")));
        assertEquals(Optional.empty(), GivenConfig.stored(opened.directory()));
    }
}
