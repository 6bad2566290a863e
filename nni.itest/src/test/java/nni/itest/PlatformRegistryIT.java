package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.After;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerMethod;
import org.osgi.framework.Bundle;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;

import nni.api.model.HyperParameters;
import nni.api.model.Placement;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * The runtime skeleton in a real framework: platforms found through the registry, a platform bundle
 * installed and removed at run time, the shared endpoint and the Gogo commands.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerMethod.class)
public class PlatformRegistryIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(10);
    private Bundle echo;

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    @After
    public void removeEcho() throws Exception {
        if (echo != null && echo.getState() != Bundle.UNINSTALLED) {
            echo.uninstall();
        }
    }

    @Test(timeout = 60_000)
    public void localIsBoundByTheManagerRegistry() throws Exception {
        ServiceComponentRuntime scr = service(ServiceComponentRuntime.class, null);
        Bundle manager = bundle("nni.manager");
        var registry = scr.getComponentDescriptionDTO(manager, "nni.manager.internal.registry.PlatformRegistry");
        assertNotNull("PlatformRegistry component", registry);
        await().atMost(WAIT).until(() -> scr.getComponentConfigurationDTOs(registry).stream()
                .anyMatch(c -> c.state == ComponentConfigurationDTO.ACTIVE
                        && List.of(c.satisfiedReferences).stream().anyMatch(r -> r.name.equals("Platform") && r.boundServices.length == 1)));
        await().atMost(WAIT).until(() -> get("api/v1/nni/platforms").body().contains("\"name\":\"local\""));
    }

    @Test(timeout = 60_000)
    public void endpointAnswersCheckStatusInNnisShape() throws Exception {
        await().atMost(WAIT).until(() -> get("api/v1/nni/check-status").statusCode() == 200);
        var response = get("api/v1/nni/check-status");
        assertEquals("application/json;charset=utf-8", response.headers().firstValue("content-type").orElse("").toLowerCase().replace(" ", ""));
        // no experiment is open: NNI's manager status before an experiment is posted
        assertTrue(response.body(), response.body().contains("\"status\":\"INITIALIZED\""));
        assertTrue(response.body(), response.body().contains("\"errors\":[]"));
        var missing = get("api/v1/nni/no-such-route");
        assertEquals(404, missing.statusCode());
        assertTrue(missing.body(), missing.body().startsWith("{\"error\":"));
    }

    @Test(timeout = 60_000)
    public void platformBundleInstalledAtRunTimeAppearsServesASessionAndGoesAway() throws Exception {
        echo = context.installBundle(echoPlatformBundle());
        echo.start();
        await().atMost(WAIT).until(() -> get("api/v1/nni/platforms").body().contains("\"name\":\"echo\""));
        assertTrue(String.valueOf(command("nni:platforms")), String.valueOf(command("nni:platforms")).contains("echo"));

        TrainingPlatform platform = service(TrainingPlatform.class, "(nni.platform=echo)");
        RecordingContext recorder = new RecordingContext();
        try (TrainingSession session = platform.open(recorder)) {
            TrialJob trial = session.submit(TrialApplication.builder("abcde")
                    .hyperParameters(HyperParameters.of("{\"parameter_id\": 0, \"parameters\": {}}", 0)).placement(Placement.none()).build());
            assertEquals("abcde", trial.id());
            assertEquals(TrialStatus.SUCCEEDED, session.trial("abcde").orElseThrow().status());
            assertEquals(List.of(TrialStatus.RUNNING, TrialStatus.SUCCEEDED),
                    recorder.changes.stream().map(TrialJob::status).toList());
            assertEquals(1, recorder.metrics.size());
        }

        echo.uninstall();
        await().atMost(WAIT).until(() -> !get("api/v1/nni/platforms").body().contains("\"name\":\"echo\""));
        assertTrue(get("api/v1/nni/platforms").body().contains("\"name\":\"local\""));
    }

    @Test(timeout = 60_000)
    public void gogoCommandsAnswerWithValues() throws Exception {
        await().atMost(WAIT).until(() -> String.valueOf(command("nni:platforms")).contains("local"));
        Object version = command("nni:version");
        assertTrue(String.valueOf(version), version instanceof Map<?, ?> map && map.containsKey("manager") && map.containsKey("api"));
        // the engine's bundle, not the shell's whose command answers
        assertEquals(bundle("nni.manager").getVersion().toString(), ((Map<?, ?>) version).get("manager"));
        assertEquals(bundle("nni.api").getVersion().toString(), ((Map<?, ?>) version).get("api"));
        String help = String.valueOf(command("help nni:platforms"));
        assertTrue(help, help.contains("lists the installed training platforms"));
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }


    static final class RecordingContext implements SessionContext {
        final List<TrialJob> changes = new CopyOnWriteArrayList<>();
        final List<String> metrics = new CopyOnWriteArrayList<>();

        @Override
        public String experimentId() {
            return "itest001";
        }

        @Override
        public Path experimentDirectory() {
            return Path.of(System.getProperty("nni.itest.scratch"), "registry-it", experimentId());
        }

        @Override
        public String platform() {
            return "echo";
        }

        @Override
        public Map<String, Object> section() {
            return Map.of("platform", "echo", "trialCommand", "true");
        }

        @Override
        public void capacityChanged() {
        }

        @Override
        public void trialChanged(TrialJob trial) {
            changes.add(trial);
        }

        @Override
        public void metricReported(String trialId, String line) {
            metrics.add(line);
        }
    }
}
