package nni.runtime.internal.deploy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

import org.apache.felix.fileinstall.ArtifactInstaller;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A jar dropped into {@code deploy/} with the symbolic name of a bundle built into the runtime is
 * refused, with one message saying why. FileInstall would otherwise update the built-in bundle with
 * it (same version) or install it beside it, and deleting the jar would then uninstall the built-in
 * bundle: the platform would be missing until the next start. FileInstall hands every artifact to
 * the first installer that claims it; this one claims exactly those jars and installs nothing.
 */
@Component
public class BuiltInBundleGuard implements ArtifactInstaller {

    private static final Logger LOG = LoggerFactory.getLogger(BuiltInBundleGuard.class);

    private final BundleContext context;
    /** The jars refused, and the symbolic name each has. */
    private final Map<File, String> refused = new ConcurrentHashMap<>();

    @Activate
    public BuiltInBundleGuard(BundleContext context) {
        this.context = context;
    }

    @Override
    public boolean canHandle(File artifact) {
        return builtInNamed(artifact) != null;
    }

    @Override
    public void install(File artifact) {
        String name = builtInNamed(artifact);
        if (name != null && refused.put(artifact, name) == null) {
            LOG.error("{}: not installed: {} is built into the runtime, and a jar of that symbolic name would replace it "
                    + "(removing the jar would then remove the built-in one too). Give the jar a symbolic name of its own "
                    + "to add it beside the built-in bundle", artifact, name);
        }
    }

    @Override
    public void update(File artifact) {
        install(artifact);
    }

    @Override
    public void uninstall(File artifact) {
        String name = refused.remove(artifact);
        if (name != null) {
            LOG.info("{} removed; the built-in {} was never replaced", artifact, name);
        }
    }

    /** @return the symbolic name of the jar when a built-in bundle (one not installed from a file) has it, else null */
    private String builtInNamed(File artifact) {
        if (!artifact.getName().endsWith(".jar") || !artifact.isFile()) {
            return null;
        }
        String name;
        try (JarFile jar = new JarFile(artifact)) {
            Manifest manifest = jar.getManifest();
            name = manifest == null ? null : manifest.getMainAttributes().getValue("Bundle-SymbolicName");
        } catch (IOException e) {
            return null; // not a jar FileInstall can install either: its own message says so
        }
        if (name == null) {
            return null;
        }
        String symbolicName = name.split(";")[0].strip();
        String deployed = artifact.toPath().toAbsolutePath().normalize().toUri().toString();
        for (Bundle bundle : context.getBundles()) {
            if (symbolicName.equals(bundle.getSymbolicName()) && !fromFile(bundle, deployed)) {
                return symbolicName;
            }
        }
        return null;
    }

    /** @return whether FileInstall installed the bundle from a file (this one, or another jar of deploy/) */
    private static boolean fromFile(Bundle bundle, String deployed) {
        String location = bundle.getLocation();
        if (location.equals(deployed)) {
            return true;
        }
        try {
            return location.startsWith("file:") && Path.of(java.net.URI.create(location)).getParent() != null
                    && Path.of(java.net.URI.create(location)).getParent().equals(Path.of(java.net.URI.create(deployed)).getParent());
        } catch (IllegalArgumentException e) {
            return false;
        }
    }
}
