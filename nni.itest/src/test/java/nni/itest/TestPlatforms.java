package nni.itest;

import java.nio.file.Path;
import java.util.Hashtable;
import java.util.Map;

import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

import nni.api.config.ConfigReader;
import nni.api.config.SectionCheck;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * Training platforms a test registers in the runtime itself: the section is checked as every
 * training service's common fields are, and the sessions are the test's own.
 */
final class TestPlatforms {

    /** Opens the test's session for one experiment member. */
    interface Opener {
        TrainingSession open(SessionContext experiment) throws PlatformException;
    }

    private TestPlatforms() {
    }

    /** @return the registration of platform {@code name}; the test unregisters it */
    static ServiceRegistration<TrainingPlatform> register(BundleContext context, String name, Opener opener) {
        return context.registerService(TrainingPlatform.class, new TrainingPlatform() {
            @Override
            public SectionCheck checkSection(Map<String, Object> section, Path baseDirectory) {
                ConfigReader reader = ConfigReader.of(section, baseDirectory);
                reader.trainingServiceFields(false);
                return reader.check();
            }

            @Override
            public TrainingSession open(SessionContext experiment) throws PlatformException {
                return opener.open(experiment);
            }
        }, new Hashtable<>(Map.of(TrainingPlatform.PLATFORM, name)));
    }

    /** @return platform {@code refusing}, whose sessions cannot open (a cluster that refuses the credentials) */
    static ServiceRegistration<TrainingPlatform> refusing(BundleContext context) {
        return register(context, "refusing", experiment -> {
            throw new PlatformException("the cluster refused the credentials");
        });
    }
}
