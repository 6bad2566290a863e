package nni.ui.internal.api;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotSame;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.osgi.framework.BundleContext;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentsRoot;
import nni.http.HttpError;
import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.manager.internal.experiment.Experiments;
import nni.manager.internal.experiment.ListTuner;
import nni.manager.internal.registry.AlgorithmRegistry;
import nni.manager.internal.registry.PlatformRegistry;
import nni.manager.internal.service.ExperimentServiceComponent;

/**
 * The UI finds experiments through the API: a stored experiment is read as a copy that is not
 * opened and kept while looked at; the open one is read as it runs.
 */
public class ExperimentLookupTest {

    @Rule
    public final TemporaryFolder folder = new TemporaryFolder();

    private ExperimentManager manager;
    private ExperimentServiceComponent service;
    private ExperimentLookup lookup;

    @Before
    public void storeAnExperiment() throws Exception {
        Path root = folder.newFolder("experiments").toPath();
        BundleContext context = (BundleContext) Proxy.newProxyInstance(BundleContext.class.getClassLoader(),
                new Class<?>[] {BundleContext.class}, (proxy, method, args) -> method.getName().equals("getProperty")
                        && ExperimentsRoot.PROPERTY.equals(args[0]) ? root.toString() : null);
        manager = new ExperimentManager(new PlatformRegistry(), new AlgorithmRegistry(), context);
        service = new ExperimentServiceComponent(manager, (nni.config.ExperimentConfigLoader) null);
        lookup = new ExperimentLookup(service);
        Path code = folder.newFolder("code").toPath();
        Files.writeString(code.resolve("trial.sh"), "echo done\n");
        Experiments setup = new Experiments(code, root);
        setup.trialCommand = "bash trial.sh";
        setup.maxTrials = 1;
        setup.platformSettings.put("python_sdk", "never");
        Experiment ran = setup.start("lookup01", new ListTuner(1), null);
        ran.settled().get(60, TimeUnit.SECONDS);
        ran.stop(Duration.ofSeconds(20));
    }

    @After
    public void closeAll() {
        lookup.close();
        manager.open().forEach(e -> manager.stopIfOpen(e.id(), Duration.ofSeconds(20)));
    }

    @Test(timeout = 120_000)
    public void aStoredExperimentIsACopyKeptWhileLookedAtAndTheOpenOneIsReadAsItRuns() throws Exception {
        ExperimentReading copy = lookup.require("lookup01");
        assertFalse(copy.open());
        assertEquals(1, copy.trialSummaries().size());
        assertSame("kept while looked at", copy, lookup.require("lookup01"));
        assertTrue("looking opens nothing", manager.open().isEmpty());

        lookup.forget("lookup01");
        assertNotSame("forgotten, read again", copy, lookup.require("lookup01"));

        service.view("lookup01").value();
        ExperimentReading open = lookup.require("lookup01");
        assertTrue(open.open());
        assertEquals("lookup01", open.info().id());

        try {
            lookup.require("nosuch00");
            fail("an experiment that is not stored is not found");
        } catch (HttpError e) {
            assertEquals(404, e.status());
        }
    }
}
