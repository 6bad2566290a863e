package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.ops4j.pax.exam.CoreOptions.bundle;
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
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;

/**
 * A started runtime lists its platforms from their service properties alone: no platform component
 * is activated (its classes and client libraries stay unloaded) until an experiment uses that
 * platform, here by validating a section for it; the other platforms stay unactivated.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class PlatformsOnFirstUseIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Configuration
    public Option[] config() {
        return new Option[] {baseOptions()};
    }

    @Override
    protected Option additionalOptions() {
        return composite(bundle(reactorBundle("nni.ts.remote")), bundle(reactorBundle("nni.tuners")));
    }

    @Test(timeout = 120_000)
    public void onlyThePlatformAnExperimentUsesIsActivated() throws Exception {
        ServiceComponentRuntime scr = service(ServiceComponentRuntime.class, null);
        ComponentDescriptionDTO local = description(scr, "nni.ts.local", "nni.ts.local.internal.LocalPlatform");
        ComponentDescriptionDTO remote = description(scr, "nni.ts.remote", "nni.ts.remote.internal.RemotePlatform");
        await().atMost(WAIT).until(() -> get("api/v1/nni/platforms").body(),
                body -> body.contains("\"name\":\"local\"") && body.contains("\"name\":\"remote\""));
        await().atMost(WAIT).until(() -> String.valueOf(command("nni:platforms")), out -> out.contains("remote"));

        assertEquals("local, listed by the REST route and nni:platforms", List.of(ComponentConfigurationDTO.SATISFIED), states(scr, local));
        assertEquals("remote, listed by the REST route and nni:platforms", List.of(ComponentConfigurationDTO.SATISFIED), states(scr, remote));

        Path file = scratch("on-first-use").resolve("config.yml");
        Files.writeString(file, """
                searchSpace: {lr: {_type: loguniform, _value: [0.0001, 0.1]}}
                trialCommand: python3 main.py
                trialConcurrency: 1
                tuner: {name: tpe, classArgs: {optimize_mode: maximize}}
                trainingService:
                  platform: remote
                  machineList:
                    - {host: 192.0.2.1, user: u, password: secret-value, port: 22}
                """);
        assertEquals(List.of("OK: " + file), command("nni:validate " + file));

        assertEquals("remote, after validating a remote section", List.of(ComponentConfigurationDTO.ACTIVE), states(scr, remote));
        assertEquals("local, unused", List.of(ComponentConfigurationDTO.SATISFIED), states(scr, local));
    }

    private ComponentDescriptionDTO description(ServiceComponentRuntime scr, String bundleName, String component) {
        Bundle owner = List.of(context.getBundles()).stream().filter(b -> bundleName.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + bundleName));
        ComponentDescriptionDTO description = scr.getComponentDescriptionDTO(owner, component);
        assertNotNull(component, description);
        return description;
    }

    private static List<Integer> states(ServiceComponentRuntime scr, ComponentDescriptionDTO description) {
        return scr.getComponentConfigurationDTOs(description).stream().map(c -> c.state).toList();
    }
}
