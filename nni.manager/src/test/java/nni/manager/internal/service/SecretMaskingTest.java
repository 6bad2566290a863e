package nni.manager.internal.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.FileHandler;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import java.util.stream.Stream;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.experiment.ExperimentUpdate;
import nni.api.experiment.TrialDetail;
import nni.config.ExperimentConfig;
import nni.config.Loaders;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentStatus;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.ListTuner;

/**
 * Secrets of a hybrid experiment (remote password and key passphrase, OpenPAI token, shared-storage
 * account key) as the real loader and platform checks mark them: the experiment runs trials on the
 * real local platform (its first training service), then the SQLite files, the REST experiment
 * profile and trial list, and the log files are searched for them; the owner-only secrets file
 * brings them back on resume.
 */
public class SecretMaskingTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<String> SECRETS = List.of("PW-remote-1f3a", "PP-remote-9c2b", "TK-openpai-77de",
            "SK-storage-5e0d");

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final Logger rootLogger = Logger.getLogger("");
    private Level rootLevel;
    private FileHandler logFile;
    private Path home;
    private Experiment experiment;

    /** Every record at every level goes to {@code <home>/log/nni.log}, as the runtime's log file. */
    @Before
    public void logToFile() throws IOException {
        home = folder.newFolder("home").toPath();
        Files.createDirectories(home.resolve("log"));
        logFile = new FileHandler(home.resolve("log").resolve("nni.log").toString());
        logFile.setFormatter(new SimpleFormatter());
        logFile.setLevel(Level.ALL);
        rootLevel = rootLogger.getLevel();
        rootLogger.setLevel(Level.ALL);
        rootLogger.addHandler(logFile);
    }

    @After
    public void cleanUp() {
        if (experiment != null) {
            experiment.stop(Duration.ofSeconds(10));
        }
        rootLogger.removeHandler(logFile);
        rootLogger.setLevel(rootLevel);
        logFile.close();
    }

    @Test(timeout = 90_000)
    public void secretsStayOutOfStoreRestAndLogsAndComeBackOnResume() throws Exception {
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), "exit 0\n");
        Files.writeString(code.resolve("id_test"), "not a real key\n");
        Path work = folder.newFolder("experiments").toPath();
        Path file = code.resolve("config.yml");
        Files.writeString(file, """
                experimentName: secrets
                searchSpace: {x: {_type: randint, _value: [0, 10]}}
                trialCommand: bash trial.sh
                trialCodeDirectory: .
                trialConcurrency: 1
                maxTrialNumber: 1
                experimentWorkingDirectory: %s
                tuner: {name: Random}
                sharedStorage:
                  storageType: AzureBlob
                  localMountPoint: ./mnt
                  remoteMountPoint: /mnt/data
                  localMounted: usermount
                  storageAccountName: account
                  storageAccountKey: SK-storage-5e0d
                  containerName: data
                trainingService:
                  - platform: local
                  - platform: remote
                    machineList:
                      - host: 127.0.0.1
                        user: alice
                        password: PW-remote-1f3a
                      - host: 127.0.0.1
                        user: bob
                        sshKeyFile: id_test
                        sshPassphrase: PP-remote-9c2b
                  - platform: openpai
                    host: pai.example.com
                    username: alice
                    token: TK-openpai-77de
                    trialGpuNumber: 1
                    trialCpuNumber: 2
                    trialMemorySize: 8gb
                    storageConfigName: confignfs-data
                    virtualCluster: null
                    localStorageMountPoint: .
                    containerStorageMountPoint: /mnt/confignfs-data
                """.formatted(work));
        ExperimentConfig config = Loaders.builtIn().load(file);
        assertEquals(List.of("sharedStorage.storageAccountKey", "trainingService[1].machineList[0].password",
                "trainingService[1].machineList[1].sshPassphrase", "trainingService[2].token"), config.secrets());
        assertNoSecret("ExperimentConfig.toString", config.toString());

        Experiments setup = new Experiments(code, work);
        experiment = setup.start("secrets1", config, new ListTuner(10));
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(30, TimeUnit.SECONDS));
        // the platform sessions still get the real values
        assertEquals("PW-remote-1f3a", machine(experiment.config(), 0).get("password"));

        String profile = JSON.writeValueAsString(ExperimentViews.profile(experiment).params());
        assertNoSecret("GET /experiment", profile);
        assertTrue(profile, profile.contains("\"password\":\"" + ExperimentConfig.MASK + "\""));
        assertTrue(profile, profile.contains("\"token\":\"" + ExperimentConfig.MASK + "\""));
        assertNoSecret("GET /trial-jobs", trialsText(experiment));

        Path directory = work.resolve("secrets1");
        Path secretsFile = directory.resolve("secrets.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secretsFile)));
        Map<String, String> kept = JSON.readValue(secretsFile.toFile(), new TypeReference<Map<String, String>>() { });
        assertEquals(config.secretValues(), kept);
        assertEquals(4, kept.size());

        experiment.stop(Duration.ofSeconds(10));
        experiment = null;
        assertNothingStoredOrLogged(directory);

        // resume: the masked definition plus the secrets file give the real config back
        experiment = setup.resume("secrets1", new ListTuner(10));
        assertEquals(config.secretValues(), experiment.config().secretValues());
        assertEquals("PP-remote-9c2b", machine(experiment.config(), 1).get("sshPassphrase"));
        assertEquals("TK-openpai-77de", experiment.config().trainingServices().get(2).get("token"));
        // a run-time update rewrites the stored definition: still masked
        experiment.update(ExperimentUpdate.of(ExperimentUpdate.MAX_TRIAL_NUMBER, 2).value());
        assertEquals(ExperimentStatus.DONE, experiment.settled().get(30, TimeUnit.SECONDS));
        assertEquals(2, experiment.trials().size());
        assertNoSecret("GET /experiment after resume", JSON.writeValueAsString(ExperimentViews.profile(experiment).params()));
        experiment.stop(Duration.ofSeconds(10));
        experiment = null;
        assertNothingStoredOrLogged(directory);

        // without the secrets file there is nothing to resume with: a clear error without values
        Files.delete(secretsFile);
        try {
            experiment = setup.resume("secrets1", new ListTuner(10));
            fail("resumed without the secrets file");
        } catch (IOException e) {
            assertTrue(e.getMessage(), e.getMessage().contains(secretsFile.toString())
                    && e.getMessage().contains("trainingService[2].token"));
            assertNoSecret("the error", e.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> machine(ExperimentConfig config, int index) {
        return ((List<Map<String, Object>>) config.trainingServices().get(1).get("machineList")).get(index);
    }

    private void assertNothingStoredOrLogged(Path directory) throws IOException {
        logFile.flush();
        List<Path> searched;
        try (Stream<Path> db = Files.list(directory.resolve("db"));
             Stream<Path> experimentLogs = Files.list(directory.resolve("log"));
             Stream<Path> runtimeLogs = Files.list(home.resolve("log"))) {
            searched = Stream.of(db, experimentLogs.filter(p -> p.toString().endsWith(".log")),
                    runtimeLogs.filter(p -> p.toString().endsWith(".log"))).flatMap(s -> s).toList();
        }
        assertTrue(searched.toString(), searched.stream().anyMatch(p -> p.getFileName().toString().equals("nni.sqlite")));
        assertTrue(searched.toString(), searched.stream().anyMatch(p -> p.getFileName().toString().equals("nni.log")));
        boolean maskStored = false;
        for (Path file : searched) {
            String bytes = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1);
            assertNoSecret(file.toString(), bytes);
            maskStored |= bytes.contains(ExperimentConfig.MASK);
        }
        // the definition and the profile are there, masked
        assertTrue("no masked definition stored", maskStored);
        String log = Files.readString(home.resolve("log").resolve("nni.log"));
        assertTrue("the log recorded nothing of the experiment", log.contains("secrets1"));
    }

    /** @return every field of every trial's detail, as text: what GET /trial-jobs is made of */
    private static String trialsText(Experiment experiment) {
        StringBuilder text = new StringBuilder();
        for (TrialDetail trial : ExperimentViews.details(experiment)) {
            text.append(trial.id()).append(' ').append(trial.status()).append(' ').append(trial.message().orElse(""))
                    .append(' ').append(trial.hyperParameters()).append(' ').append(trial.logPath());
            trial.finalMetrics().forEach(metric -> text.append(' ').append(metric.data()));
            trial.current().ifPresent(current -> text.append(' ').append(current.job().attributes())
                    .append(' ').append(current.job().host()).append(' ').append(current.job().hyperParameters()));
            text.append('\n');
        }
        return text.toString();
    }

    private static void assertNoSecret(String where, String text) {
        for (String secret : SECRETS) {
            assertFalse(where + " contains " + secret, text.contains(secret));
        }
    }
}
