package nni.ts.k8s;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleException;
import org.osgi.framework.FrameworkUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts fabric8's bundles when a Kubernetes platform first connects. The runtime installs them
 * without starting them (run.bndrun's {@code nni.launcher.started.on.use}): a started model bundle
 * has SPI Fly load and register each Kubernetes resource class it lists as a service provider,
 * hundreds of classes no runtime without a Kubernetes experiment needs. Their classes load from a
 * resolved bundle either way; started, the client's service loader sees the models' providers as
 * it does when they are started at start-up. Started transiently: the next start leaves them again.
 */
final class FabricBundles {

    private static final Logger LOG = LoggerFactory.getLogger(FabricBundles.class);
    private static final String PREFIX = "io.fabric8.";
    private static volatile boolean started;

    private FabricBundles() {
    }

    /** Starts every fabric8 bundle not started yet; nothing outside a framework (unit tests). */
    static void start() {
        if (started) {
            return;
        }
        synchronized (FabricBundles.class) {
            Bundle own = FrameworkUtil.getBundle(FabricBundles.class);
            if (started || own == null || own.getBundleContext() == null) {
                return;
            }
            int count = 0;
            for (Bundle bundle : own.getBundleContext().getBundles()) {
                String name = bundle.getSymbolicName();
                if (name != null && name.startsWith(PREFIX) && (bundle.getState() & (Bundle.INSTALLED | Bundle.RESOLVED)) != 0) {
                    try {
                        bundle.start(Bundle.START_TRANSIENT);
                        count++;
                    } catch (BundleException | IllegalStateException e) {
                        LOG.warn("could not start {} {}; the Kubernetes client may miss what it provides", name, bundle.getVersion(), e);
                    }
                }
            }
            if (count > 0) {
                LOG.info("started {} fabric8 bundles for the first Kubernetes connection", count);
            }
            started = true;
        }
    }
}
