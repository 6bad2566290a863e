package nni.api.testkit.paxexam;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;
import static org.ops4j.pax.exam.CoreOptions.composite;
import static org.ops4j.pax.exam.CoreOptions.junitBundles;
import static org.ops4j.pax.exam.CoreOptions.mavenBundle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.inject.Inject;

import org.junit.Test;
import org.ops4j.pax.exam.Option;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.util.tracker.ServiceTracker;

import nni.api.platform.TrainingPlatform;
import nni.api.testkit.PlatformContract;

/**
 * The platform contract ({@link PlatformContract}) run inside a real OSGi framework by Pax Exam,
 * with the platform taken from the service registry as the manager takes it, plus checks of the
 * platform's bundle as the runtime installs it:
 * <ul>
 * <li>it registers exactly one {@link TrainingPlatform} service named {@link #platformName()}
 *     ({@link #theBundleRegistersOnePlatformServiceOfThatName});</li>
 * <li>it exports no package: platforms are implementations, the API is {@code nni.api}
 *     ({@link #theBundleExportsNothing});</li>
 * <li>every Declarative Services component of the bundle is active, or waits only for its
 *     required configuration ({@link #everyComponentOfTheBundleIsSatisfied});</li>
 * <li>stopping the bundle removes the platform and starting it brings it back, as a bundle update
 *     in the runtime does ({@link #stoppingTheBundleRemovesThePlatformAndStartingBringsItBack}).</li>
 * </ul>
 *
 * <h2>Use</h2>
 * <pre>
 * &#64;RunWith(PaxExam.class)
 * &#64;ExamReactorStrategy(PerClass.class)
 * public class AcmeBundleIT extends PlatformBundleContract {
 *     &#64;Configuration
 *     public Option[] config() {
 *         return new Option[] {frameworkBasics(), kitBundles(),
 *                 mavenBundle("com.acme", "acme.ts").versionAsInProject()};
 *     }
 *     protected String platformName() { return "acme"; }
 *     protected Map&lt;String, Object&gt; section(Path code) { ... }
 * }
 * </pre>
 * {@link #frameworkBasics()} and {@link #kitBundles()} use {@code versionAsInProject()}, which
 * needs the {@code depends-maven-plugin} ({@code generate-depends-file}) and the bundles as test
 * dependencies of the project, as usual with Pax Exam; run the Pax Exam native container with the
 * system property {@code pax.exam.logging=none} when the framework uses SLF4J 2. A platform that
 * needs more in the framework (the manager's {@code KeeperSessions}, an HTTP service, a
 * configuration) adds those options and configurations itself.
 *
 * <p>Run each class extending this one in its own JVM (failsafe {@code reuseForks=false}, as
 * {@code nni.itest} does): the test methods are inherited, and Pax Exam 4 maps an inherited method
 * to one test class per JVM, so a second class's tests would run in the first class's framework.
 */
public abstract class PlatformBundleContract extends PlatformContract {

    /** The framework's context, injected by Pax Exam into the test inside the framework. */
    @Inject
    protected BundleContext bundleContext;

    /** @return the platform's name, its service's {@value TrainingPlatform#PLATFORM} property */
    protected abstract String platformName();

    /** @return how long the platform service may take to (re)appear */
    protected Duration registrationPatience() {
        return Duration.ofSeconds(30);
    }

    /** @return Felix SCR, Config Admin, OSGi promises and JUnit: what a DS platform bundle needs around it */
    public static Option frameworkBasics() {
        return composite(
                mavenBundle("org.osgi", "org.osgi.util.function").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.util.promise").versionAsInProject(),
                mavenBundle("org.osgi", "org.osgi.service.component").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.scr").versionAsInProject(),
                mavenBundle("org.apache.felix", "org.apache.felix.configadmin").versionAsInProject(),
                junitBundles());
    }

    /** @return {@code nni.api} and this kit as bundles */
    public static Option kitBundles() {
        return composite(
                mavenBundle("nni", "nni.api").versionAsInProject(),
                mavenBundle("nni", "nni.api.testkit").versionAsInProject());
    }

    /** The platform as the manager finds it: the service of that name the framework ranks first. */
    @Override
    protected TrainingPlatform platform() throws Exception {
        ServiceReference<TrainingPlatform> reference = awaitPlatformService();
        return bundleContext.getService(reference);
    }

    @Test
    public void theBundleRegistersOnePlatformServiceOfThatName() throws Exception {
        ServiceReference<TrainingPlatform> reference = awaitPlatformService();
        Bundle bundle = reference.getBundle();

        List<String> platforms = new ArrayList<>();
        ServiceReference<?>[] registered = bundle.getRegisteredServices();
        for (ServiceReference<?> service : registered == null ? new ServiceReference<?>[0] : registered) {
            if (List.of((String[]) service.getProperty(Constants.OBJECTCLASS)).contains(TrainingPlatform.class.getName())) {
                platforms.add(String.valueOf(service.getProperty(TrainingPlatform.PLATFORM)));
            }
        }
        assertEquals("TrainingPlatform services of bundle " + bundle.getSymbolicName(), List.of(platformName()), platforms);
    }

    @Test
    public void theBundleExportsNothing() throws Exception {
        Bundle bundle = awaitPlatformService().getBundle();
        BundleRevision revision = bundle.adapt(BundleRevision.class);

        assertEquals("packages exported by " + bundle.getSymbolicName() + " (a platform bundle exports nothing)", List.of(),
                revision.getDeclaredCapabilities(BundleRevision.PACKAGE_NAMESPACE).stream()
                        .map(capability -> capability.getAttributes().get(BundleRevision.PACKAGE_NAMESPACE)).toList());
    }

    @Test
    public void everyComponentOfTheBundleIsSatisfied() throws Exception {
        Bundle bundle = awaitPlatformService().getBundle();
        ServiceComponentRuntime scr = bundleContext.getService(bundleContext.getServiceReference(ServiceComponentRuntime.class));
        assertNotNull("no Declarative Services runtime", scr);

        List<String> unsatisfied = new ArrayList<>();
        for (ComponentDescriptionDTO component : scr.getComponentDescriptionDTOs(bundle)) {
            if (!scr.isComponentEnabled(component)) {
                continue;
            }
            List<ComponentConfigurationDTO> configurations = new ArrayList<>(scr.getComponentConfigurationDTOs(component));
            if (configurations.isEmpty() && !"require".equals(component.configurationPolicy)) {
                unsatisfied.add(component.name + " has no configuration although it does not require one");
            }
            for (ComponentConfigurationDTO configuration : configurations) {
                if (configuration.state == ComponentConfigurationDTO.UNSATISFIED_REFERENCE
                        || configuration.state == ComponentConfigurationDTO.UNSATISFIED_CONFIGURATION
                        || configuration.state == ComponentConfigurationDTO.FAILED_ACTIVATION) {
                    unsatisfied.add(component.name + " is in state " + configuration.state
                            + (configuration.failure == null ? "" : ": " + configuration.failure));
                }
            }
        }
        assertEquals("components of " + bundle.getSymbolicName(), List.of(), unsatisfied);
    }

    @Test
    public void stoppingTheBundleRemovesThePlatformAndStartingBringsItBack() throws Exception {
        Bundle bundle = awaitPlatformService().getBundle();
        Filter filter = platformFilter();
        CountDownLatch gone = new CountDownLatch(1);
        ServiceListener listener = event -> {
            if (event.getType() == ServiceEvent.UNREGISTERING && filter.match(event.getServiceReference())
                    && event.getServiceReference().getBundle().equals(bundle)) {
                gone.countDown();
            }
        };
        bundleContext.addServiceListener(listener);
        try {
            bundle.stop();
            assertTrue("the platform service stayed after its bundle stopped", gone.await(registrationPatience().toMillis(),
                    TimeUnit.MILLISECONDS));
            assertTrue("another bundle provides " + platformName(), bundleContext.getServiceReferences(TrainingPlatform.class,
                    filter.toString()).stream().noneMatch(reference -> bundle.equals(reference.getBundle())));
        } finally {
            bundleContext.removeServiceListener(listener);
            bundle.start();
        }
        assertEquals(bundle, awaitPlatformService().getBundle());
    }

    /** @return the platform service, waiting for it up to {@link #registrationPatience()} */
    protected final ServiceReference<TrainingPlatform> awaitPlatformService() throws InterruptedException, InvalidSyntaxException {
        ServiceTracker<TrainingPlatform, TrainingPlatform> tracker = new ServiceTracker<>(bundleContext, platformFilter(), null);
        tracker.open();
        try {
            if (tracker.waitForService(registrationPatience().toMillis()) == null) {
                fail("no TrainingPlatform service named " + platformName() + " within " + registrationPatience().toSeconds() + " s");
            }
            return tracker.getServiceReference();
        } finally {
            tracker.close();
        }
    }

    private Filter platformFilter() throws InvalidSyntaxException {
        return FrameworkUtil.createFilter("(&(" + Constants.OBJECTCLASS + "=" + TrainingPlatform.class.getName() + ")("
                + TrainingPlatform.PLATFORM + "=" + platformName() + "))");
    }
}
