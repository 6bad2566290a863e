package nni.itest.conformance;

import static org.junit.Assume.assumeTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.service.cm.ConfigurationAdmin;

import nni.api.platform.TrainingPlatform;
import nni.api.testkit.ConformanceTrial;
import nni.api.testkit.paxexam.PlatformBundleContract;
import nni.itest.RuntimeTestSupport;
import nni.itest.sshd.SshdHarness;
import nni.itest.sshd.SshdMachine;

/**
 * The remote platform passes the conformance kit against two real OpenSSH servers (nni.itest.sshd):
 * root with a passphrase-protected key on one, {@code nnitest} with a password on the other, each
 * trial run by a trial keeper that reports to the runtime's one HTTP port.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class RemoteConformanceIT extends PlatformBundleContract {

    private static SshdHarness sshd;

    @Configuration
    public Option[] config() {
        return new Option[] {RuntimeTestSupport.runtime("0"),
                bundle(RuntimeTestSupport.reactorBundle("nni.api.testkit")),
                bundle(RuntimeTestSupport.reactorBundle("nni.ts.remote")),
                bundle(RuntimeTestSupport.reactorBundle("nni.itest.sshd"))};
    }

    @Override
    protected String platformName() {
        return "remote";
    }

    /** The platform once it trusts the test machines' host keys (configured once for the class). */
    @Override
    protected TrainingPlatform platform() throws Exception {
        if (sshd == null) {
            String unavailable = SshdHarness.unavailableReason();
            assumeTrue("skipped: " + unavailable, unavailable == null);
            sshd = SshdHarness.start(2);
            // the machines' experiment root: both users write below it
            Files.setPosixFilePermissions(sshd.toolsDirectory("remote"), PosixFilePermissions.fromString("rwxrwxrwx"));
            configure();
        }
        return super.platform();
    }

    /** Points the platform at the machines' known_hosts and waits for the component made with it. */
    private void configure() throws Exception {
        String filter = "(&(nni.platform=remote)(known.hosts=" + sshd.knownHosts() + "))";
        CountDownLatch configured = new CountDownLatch(1);
        ServiceListener listener = event -> {
            if (event.getType() == ServiceEvent.REGISTERED) {
                configured.countDown();
            }
        };
        bundleContext.addServiceListener(listener, filter);
        try {
            Dictionary<String, Object> properties = new Hashtable<>();
            properties.put("known.hosts", sshd.knownHosts().toString());
            properties.put("check.interval.seconds", 1);
            properties.put("kill.grace.seconds", 2);
            properties.put("remote.directory", sshd.directory().resolve("remote").toString());
            ConfigurationAdmin admin = bundleContext.getService(bundleContext.getServiceReference(ConfigurationAdmin.class));
            admin.getConfiguration("nni.ts.remote", "?").update(properties);
            if (bundleContext.getServiceReferences(TrainingPlatform.class, filter).isEmpty()
                    && !configured.await(registrationPatience().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the remote platform did not come back with its configuration");
            }
        } finally {
            bundleContext.removeServiceListener(listener);
        }
    }

    @Override
    protected Map<String, Object> section(Path codeDirectory) {
        SshdMachine a = sshd.machines().get(0);
        SshdMachine b = sshd.machines().get(1);
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("host", a.host());
        root.put("port", a.port());
        root.put("user", "root");
        root.put("sshKeyFile", sshd.passphraseKey().toString());
        root.put("sshPassphrase", SshdHarness.PASSPHRASE);
        Map<String, Object> user = new LinkedHashMap<>();
        user.put("host", b.host());
        user.put("port", b.port());
        user.put("user", SshdHarness.USER);
        user.put("password", sshd.password());
        Map<String, Object> section = new LinkedHashMap<>();
        section.put("platform", "remote");
        section.put("trialCommand", ConformanceTrial.COMMAND);
        section.put("trialCodeDirectory", codeDirectory.toString());
        section.put("machineList", List.of(root, user));
        return section;
    }

    @Override
    protected List<String> secretPaths() {
        return List.of("machineList[0].sshPassphrase", "machineList[1].password");
    }

    @Override
    protected Path scratchDirectory() {
        return Path.of(System.getProperty("nni.itest.scratch"));
    }
}
