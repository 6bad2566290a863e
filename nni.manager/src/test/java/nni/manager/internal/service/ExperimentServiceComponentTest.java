package nni.manager.internal.service;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.osgi.framework.BundleContext;

import nni.api.experiment.ExperimentEntry;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentProfile;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.ExperimentUpdate;
import nni.api.experiment.ExperimentsRoot;
import nni.api.experiment.NnictlRegistry;
import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;
import nni.api.experiment.TrialDetail;
import nni.api.experiment.TrialInfo;
import nni.api.experiment.TrialSummary;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.registry.AlgorithmRegistry;
import nni.manager.internal.registry.PlatformRegistry;

/**
 * The service's refusals, as values of the kind a face maps, over a real manager and a real stored
 * experiment (run to its end by the local platform, then opened read-only).
 */
public class ExperimentServiceComponentTest {

    @Rule
    public final TemporaryFolder folder = new TemporaryFolder();

    private Path root;
    private ExperimentManager manager;
    private ExperimentServiceComponent service;

    @Before
    public void setUp() throws Exception {
        root = folder.newFolder("experiments").toPath();
        BundleContext context = (BundleContext) Proxy.newProxyInstance(BundleContext.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (proxy, method, args) -> method.getName().equals("getProperty")
                        && ExperimentsRoot.PROPERTY.equals(args[0]) ? root.toString() : null);
        manager = new ExperimentManager(new PlatformRegistry(), new AlgorithmRegistry(), context);
        service = new ExperimentServiceComponent(manager, (nni.config.ExperimentConfigLoader) null);
    }

    @After
    public void tearDown() {
        manager.open().forEach(e -> manager.stopIfOpen(e.id(), Duration.ofSeconds(20)));
    }

    /** The console's resume, view, trials and explog say what they said when they asked the engine itself. */
    @Test
    public void anExperimentNotStoredIsRefusedInTheEnginesWords() throws Exception {
        String none = "no experiment nosuch00 in " + root;
        assertEquals(none, refused(service.read("nosuch00"), Refusal.Kind.NOT_FOUND).message());
        assertEquals(none, refused(service.view("nosuch00"), Refusal.Kind.NOT_FOUND).message());
        assertEquals(none, refused(service.resume("nosuch00"), Refusal.Kind.NOT_FOUND).message());
        assertEquals("not an experiment id: ../up", refused(service.read("../up"), Refusal.Kind.NOT_FOUND).message());
        assertEquals("not an experiment id: ../up", refused(service.view("../up"), Refusal.Kind.NOT_FOUND).message());
        assertEquals("not an experiment id: ../up", refused(service.resume("../up"), Refusal.Kind.INVALID).message());
    }

    @Test
    public void nothingOpenIsNotFoundNamingWhatIs() {
        ExperimentUpdate two = ExperimentUpdate.of(ExperimentUpdate.TRIAL_CONCURRENCY, 2).value();
        Refusal named = refused(service.update("nosuch00", two), Refusal.Kind.NOT_FOUND);
        assertEquals("no open experiment nosuch00; open: []", named.message());
        assertEquals("no experiment is open", refused(service.update(null, two), Refusal.Kind.NOT_FOUND).message());
        refused(service.get("nosuch00"), Refusal.Kind.NOT_FOUND);
        refused(service.stop("nosuch00"), Refusal.Kind.NOT_FOUND);
        refused(service.cancelTrial("nosuch00", "abcde"), Refusal.Kind.NOT_FOUND);
        assertEquals(List.of(), service.list());
    }

    @Test(timeout = 120_000)
    public void aStoredExperimentIsViewedReadOnlyAndRefusesChangesAsConflicts() throws Exception {
        storeOneTrialExperiment("svcunit1", "exit 0\n");

        refused(service.resume("nosuch00"), Refusal.Kind.NOT_FOUND);
        ExperimentInfo viewed = service.view("svcunit1").value();
        assertTrue(viewed.readOnly());
        assertEquals(1, viewed.trialCount());
        assertEquals(List.of("svcunit1"), service.list().stream().map(ExperimentInfo::id).toList());

        refused(service.view("svcunit1"), Refusal.Kind.CONFLICT);
        Refusal update = refused(service.update("svcunit1", ExperimentUpdate.of(ExperimentUpdate.MAX_TRIAL_NUMBER, 5).value()),
                Refusal.Kind.CONFLICT);
        assertTrue(update.message(), update.message().contains("read-only"));
        refused(service.importData("svcunit1", "[]"), Refusal.Kind.CONFLICT);
        String trial = service.trials("svcunit1").value().get(0).job().id();
        refused(service.cancelTrial("svcunit1", trial), Refusal.Kind.CONFLICT);
        refused(service.metrics("svcunit1", "nosuch"), Refusal.Kind.NOT_FOUND);
        assertEquals(Integer.valueOf(1), service.get("svcunit1").value().maxTrialNumber().orElseThrow());

        assertTrue(service.stop("svcunit1").isDone());
        refused(service.get("svcunit1"), Refusal.Kind.NOT_FOUND);
    }

    /** A refused configuration is refused in the loader's own words, and nothing is announced. */
    @Test
    public void aRefusedConfigurationAnnouncesNothing() throws Exception {
        ExperimentServiceComponent loading = new ExperimentServiceComponent(manager, nni.config.Loaders.builtIn());
        Path config = folder.newFile("config.yml").toPath();
        Files.writeString(config, "trialConcurrency: two\n");
        List<String> announced = new java.util.ArrayList<>();
        Refusal refusal = refused(loading.create(config, (id, directory) -> announced.add(id)), Refusal.Kind.INVALID);
        try {
            nni.config.Loaders.builtIn().load(config);
            throw new AssertionError("loaded");
        } catch (nni.config.ConfigException e) {
            assertEquals(e.getMessage(), refusal.message());
        }
        assertEquals(List.of(), announced);
        assertEquals(List.of(), service.stored());
    }

    /**
     * What a face following an experiment reads: when it settles (at once for one that has, as a
     * viewed one has; not at all for one no longer open), how many trials it had when opened, and a
     * resume refused in the engine's words.
     */
    @Test(timeout = 120_000)
    public void settledAnswersTheStatusAnOpenExperimentSettledWith() throws Exception {
        storeOneTrialExperiment("svcsettle", "exit 0\n");

        refused(service.settled("svcsettle"), Refusal.Kind.NOT_FOUND);
        Refusal badId = refused(service.resume("no/such"), Refusal.Kind.INVALID);
        assertEquals("not an experiment id: no/such", badId.message());
        assertEquals(Optional.of("id"), badId.field());
        assertEquals("no experiment nosuch00 in " + root, refused(service.resume("nosuch00"), Refusal.Kind.NOT_FOUND).message());

        ExperimentInfo viewed = service.view("svcsettle").value();
        assertEquals(1, viewed.trialsWhenOpened());
        var settled = service.settled("svcsettle").value().toCompletableFuture();
        assertEquals("VIEWED", settled.get(10, TimeUnit.SECONDS));
        // a waiter completing its copy changes nothing for the next
        settled.obtrudeValue("DONE");
        assertEquals("VIEWED", service.settled("svcsettle").value().toCompletableFuture().get(10, TimeUnit.SECONDS));
        assertTrue(service.stop("svcsettle").isDone());
        refused(service.settled("svcsettle"), Refusal.Kind.NOT_FOUND);
    }

    /** The experiments list: a stored one with the status NNI's registry keeps, STOPPED without it; an open one its own. */
    @Test(timeout = 120_000)
    public void theListingShowsAStoredExperimentAsItEndedAndAnOpenOneAsItIs() throws Exception {
        storeOneTrialExperiment("svclist1", "exit 0\n");

        ExperimentEntry stopped = service.listing().get(0);
        assertEquals(1, service.listing().size());
        assertEquals("svclist1", stopped.id());
        assertFalse(stopped.open());
        assertEquals("STOPPED", stopped.status()); // no registry bound
        assertEquals(1, stopped.summary().succeeded());
        assertTrue(stopped.startTime().isPresent());

        service.nnictl = new NnictlRegistry() {
            @Override
            public List<Map<String, Object>> entries() {
                throw new UnsupportedOperationException();
            }

            @Override
            public Optional<Map<String, Object>> entry(String id) {
                throw new UnsupportedOperationException();
            }

            @Override
            public Map<String, String> statuses() {
                return Map.of("svclist1", "DONE");
            }
        };
        assertEquals("DONE", service.listing().get(0).status());
        assertEquals("DONE", service.endedStatus("svclist1"));
        assertEquals("STOPPED", service.endedStatus("nosuch00"));

        ExperimentInfo viewed = service.view("svclist1").value();
        ExperimentEntry open = service.listing().get(0);
        assertTrue(open.open());
        assertEquals(viewed.status(), open.status());
        assertEquals(1, open.summary().succeeded());
    }

    /** What NNI's REST routes read of an ended experiment, through the API alone. */
    @Test(timeout = 120_000)
    public void aStoredExperimentsTrialsAreReadInFull() throws Exception {
        storeOneTrialExperiment("svcunit2", """
                emit() { local data="$1"$'\\n'; printf 'ME%06d%s' "${#data}" "$data" >> "$NNI_SYS_DIR/.nni/metrics"; }
                metric() { echo '{"parameter_id": 0, "trial_job_id": "'"$NNI_TRIAL_JOB_ID"'", "type": "'"$1"'", "sequence": 0, "value": "'"$2"'"}'; }
                emit "$(metric PERIODICAL 1.5)"
                emit "$(metric FINAL 4.5)"
                echo hello from the trial
                """);

        // read for looking at: a copy that is not open, seen by nothing else
        try (ExperimentReading copy = service.read("svcunit2").value()) {
            assertFalse(copy.open());
            assertTrue(copy.info().readOnly());
            assertEquals(List.of(), service.list());
            refused(service.get("svcunit2"), Refusal.Kind.NOT_FOUND);
            TrialSummary only = copy.trialSummaries().get(0);
            assertEquals(Optional.of(4.5), only.finalValue());
            assertEquals(only.job().id(), copy.trial(only.job().id()).orElseThrow().job().id());
            assertEquals(Optional.empty(), copy.trial("nosuch"));
            assertTrue(copy.searchSpace().containsKey("x"));
            assertEquals("bash trial.sh", copy.profile().params().get("trialCommand"));
            assertEquals(Optional.empty(), copy.givenConfig()); // started from no file
            List<String> types = new java.util.ArrayList<>();
            copy.forEachMetric(metric -> types.add(metric.type()));
            assertEquals(List.of("PERIODICAL", "FINAL"), types);
            try (InputStream stdout = copy.openTrialFile(only.job().id(), "stdout").value().orElseThrow()) {
                assertTrue(new String(stdout.readAllBytes(), StandardCharsets.UTF_8).contains("hello from the trial"));
            }
            refused(copy.openTrialFile(only.job().id(), "secrets.json"), Refusal.Kind.INVALID);
            refused(copy.openTrialFile("nosuch", "stdout"), Refusal.Kind.NOT_FOUND);
        }
        refused(service.read("nosuch00"), Refusal.Kind.NOT_FOUND);
        refused(service.read(null), Refusal.Kind.INVALID);

        // summed up from its database alone, and kept while the database does not change
        ExperimentEntry summed = service.listing().get(0);
        assertEquals("svcunit2", summed.id());
        assertFalse(summed.open());
        assertEquals(Optional.of(4.5), summed.summary().best());
        assertTrue(summed.summary().countsText(), summed.summary().countsText().startsWith("succeeded 1  failed 0  "));
        assertEquals(Integer.valueOf(1), summed.summary().byStatus().get("SUCCEEDED"));
        assertTrue(summed.startTime().isPresent() && summed.execDuration().isPresent());
        assertSame("the database did not change: its summary is not read again", summed.summary(),
                service.listing().get(0).summary());
        assertTrue(service.view("svcunit2").value().settled());
        try (ExperimentReading open = service.read("svcunit2").value()) {
            assertTrue(open.open());
        }
        assertEquals("closing a reading of the open experiment leaves it open", 1, service.list().size());

        TrialDetail trial = service.trialDetails("svcunit2").value().get(0);
        assertEquals("SUCCEEDED", trial.status());
        assertEquals(Optional.of(0L), trial.sequenceId());
        assertEquals(1, trial.hyperParameters().size());
        assertTrue(trial.hyperParameters().get(0), trial.hyperParameters().get(0).contains("\"parameters\":{\"x\":0}"));
        assertEquals("file://localhost" + root.resolve("svcunit2").resolve("trials").resolve(trial.id()), trial.logPath());
        assertEquals(List.of("\"4.5\""), trial.finalMetrics().stream().map(MetricInfo::data).toList());
        assertEquals(Optional.of("0"), trial.finalMetrics().get(0).parameterId());
        assertEquals(trial.id(), trial.current().orElseThrow().job().id());
        assertEquals(trial.toString(), service.trialDetail("svcunit2", trial.id()).value().toString());
        refused(service.trialDetail("svcunit2", "nosuch"), Refusal.Kind.NOT_FOUND);
        refused(service.trial("svcunit2", "nosuch"), Refusal.Kind.NOT_FOUND);
        TrialInfo info = service.trial("svcunit2", trial.id()).value();
        assertEquals(trial.id(), info.job().id());
        assertEquals(0L, info.sequenceId());
        assertTrue(info.packedParameters().orElseThrow(), info.packedParameters().orElseThrow().contains("\"x\": 0")
                || info.packedParameters().orElseThrow().contains("\"x\":0"));
        assertEquals(Optional.empty(), info.waitingFor());

        TrialSummary summary = service.trialSummaries("svcunit2").value().get(0);
        assertEquals(trial.id(), summary.job().id());
        assertEquals(0L, summary.sequenceId());
        assertEquals(java.util.Map.of("x", 0), summary.parameters());
        assertEquals(Optional.of(4.5), summary.finalValue());
        assertEquals(Optional.of(1.5), summary.latestValue());
        assertEquals(1, summary.intermediateCount());
        assertEquals(Optional.of("local"), summary.platform());
        assertEquals(Optional.empty(), summary.waitingFor());
        refused(service.trialSummaries("nosuch00"), Refusal.Kind.NOT_FOUND);

        ExperimentInfo viewed = service.get("svcunit2").value();
        assertTrue(viewed.maximizing());
        assertEquals(Optional.empty(), viewed.waitingForPlatform());
        assertFalse(viewed.execDuration().isNegative());

        assertEquals(List.of("PERIODICAL"), service.metrics("svcunit2", trial.id(), "PERIODICAL").value().stream()
                .map(MetricInfo::type).toList());
        assertEquals(List.of("FINAL"), service.metrics("svcunit2", null, "FINAL").value().stream().map(MetricInfo::type).toList());
        assertEquals(2, service.metrics("svcunit2", trial.id(), null).value().size());
        refused(service.metrics("svcunit2", "nosuch", "FINAL"), Refusal.Kind.NOT_FOUND);

        try (InputStream stdout = service.openTrialFile("svcunit2", trial.id(), "stdout").value().orElseThrow()) {
            assertTrue(new String(stdout.readAllBytes(), StandardCharsets.UTF_8).contains("hello from the trial"));
        }
        Refusal name = refused(service.openTrialFile("svcunit2", trial.id(), "secrets.json"), Refusal.Kind.INVALID);
        assertEquals("a trial's files here are stdout, stderr, trial.log; no secrets.json", name.message());
        refused(service.openTrialFile("svcunit2", "nosuch", "stdout"), Refusal.Kind.NOT_FOUND);

        ExperimentProfile profile = service.profile("svcunit2").value();
        assertEquals("svcunit2", profile.id());
        assertEquals("bash trial.sh", profile.params().get("trialCommand"));
        assertEquals(1, profile.nextSequenceId());
        assertEquals(root.resolve("svcunit2"), profile.logDir());
        assertTrue(profile.endTime().isPresent());
        assertEquals(List.of(), service.importedData("svcunit2").value());
        refused(service.profile("nosuch00"), Refusal.Kind.NOT_FOUND);
    }

    private static Refusal refused(Outcome<?> outcome, Refusal.Kind kind) {
        assertFalse("expected " + kind + ", got " + outcome, outcome.isDone());
        Refusal refusal = outcome.refusal().orElseThrow();
        assertEquals(refusal.message(), kind, refusal.kind());
        return refusal;
    }

    /**
     * Runs an experiment of one shell trial ({@code script}, no SDK shipped) to its end and stops it:
     * stored under the root, no longer open.
     */
    private void storeOneTrialExperiment(String id, String script) throws Exception {
        Path code = folder.newFolder("code-" + id).toPath();
        Files.writeString(code.resolve("trial.sh"), script);
        Experiments setup = new Experiments(code, root);
        setup.trialCommand = "bash trial.sh";
        setup.maxTrials = 1;
        setup.platformSettings.put("python_sdk", "never");
        Experiment ran = setup.start(id, new ListTuner(1), null);
        ran.settled().get(60, TimeUnit.SECONDS);
        ran.stop(Duration.ofSeconds(20));
    }
}
