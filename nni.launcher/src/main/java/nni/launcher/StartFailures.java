package nni.launcher;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * The runtime's bundles that the framework could not start while it went up to its start level
 * (it reports each as a {@link FrameworkEvent#ERROR} with the bundle and the exception), told in
 * a line each: the bundle, and either what it needs that nothing provides (a package of a Java
 * module the JRE lacks, a bundle missing from the build) or what its activator threw. Without
 * this a runtime missing one of its bundles only logged the framework's message, and a one-shot
 * command waited for a command runner that never came.
 */
final class StartFailures implements FrameworkListener {

    private static final Pattern PACKAGE = Pattern.compile("\\(osgi\\.wiring\\.package=([^)]*)\\)");

    private final BundleContext context;
    private final Map<Bundle, Throwable> failed = new ConcurrentHashMap<>();

    StartFailures(BundleContext context) {
        this.context = context;
    }

    @Override
    public void frameworkEvent(FrameworkEvent event) {
        Bundle bundle = event.getBundle();
        if (event.getType() == FrameworkEvent.ERROR && bundle != null && bundle.getBundleId() != 0) {
            failed.putIfAbsent(bundle, event.getThrowable() == null ? new BundleException("failed") : event.getThrowable());
        }
    }

    /** @return one line per bundle that failed and does not run now, root causes first; empty when all run */
    List<String> describe() {
        List<String> lines = new ArrayList<>();
        List<String> consequences = new ArrayList<>();
        FrameworkWiring wiring = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION).adapt(FrameworkWiring.class);
        for (Map.Entry<Bundle, Throwable> failure : failed.entrySet()) {
            Bundle bundle = failure.getKey();
            if (bundle.getState() == Bundle.ACTIVE || bundle.getState() == Bundle.UNINSTALLED) {
                continue;
            }
            String name = "bundle " + bundle.getSymbolicName() + " " + bundle.getVersion();
            if (bundle.getState() != Bundle.INSTALLED) {
                lines.add(name + " failed to start: " + reason(failure.getValue()));
                continue;
            }
            List<String> unprovided = new ArrayList<>();
            Set<String> unresolvedProviders = new TreeSet<>();
            for (BundleRequirement requirement : bundle.adapt(BundleRevision.class).getDeclaredRequirements(null)) {
                if (optional(requirement)) {
                    continue;
                }
                Collection<BundleCapability> providers = wiring.findProviders(requirement);
                if (providers.isEmpty()) {
                    unprovided.add(what(requirement));
                } else if (providers.stream().allMatch(provider -> provider.getRevision().getBundle().getState() == Bundle.INSTALLED)) {
                    unresolvedProviders.add(providers.iterator().next().getRevision().getSymbolicName());
                }
            }
            if (!unprovided.isEmpty()) {
                lines.add(name + " cannot resolve: it needs " + String.join(", ", unprovided)
                        + ", which no bundle provides and this Java (" + System.getProperty("java.home") + ") lacks");
            } else if (!unresolvedProviders.isEmpty()) {
                consequences.add(name + " cannot resolve: it needs bundle " + String.join(", ", unresolvedProviders)
                        + ", which cannot resolve");
            } else {
                lines.add(name + " cannot resolve: " + reason(failure.getValue()));
            }
        }
        lines.sort(null);
        consequences.sort(null);
        lines.addAll(consequences);
        return lines;
    }

    private static boolean optional(BundleRequirement requirement) {
        Map<String, String> directives = requirement.getDirectives();
        return Constants.RESOLUTION_OPTIONAL.equals(directives.get(Constants.RESOLUTION_DIRECTIVE))
                || PackageNamespace.RESOLUTION_DYNAMIC.equals(directives.get(Constants.RESOLUTION_DIRECTIVE))
                || !Constants.EFFECTIVE_RESOLVE.equals(directives.getOrDefault(Constants.EFFECTIVE_DIRECTIVE, Constants.EFFECTIVE_RESOLVE));
    }

    /** @return the requirement in words: {@code package javax.management.remote.rmi}, else its namespace and filter */
    static String what(BundleRequirement requirement) {
        String filter = requirement.getDirectives().getOrDefault(Constants.FILTER_DIRECTIVE, "");
        if (PackageNamespace.PACKAGE_NAMESPACE.equals(requirement.getNamespace())) {
            Matcher name = PACKAGE.matcher(filter);
            if (name.find()) {
                return "package " + name.group(1);
            }
        }
        return requirement.getNamespace() + " " + filter;
    }

    /** @return the innermost message of a start failure: what the activator threw, not the framework's wrapping */
    private static String reason(Throwable failure) {
        Throwable cause = failure;
        while (cause.getCause() != null && cause.getCause() != cause) {
            cause = cause.getCause();
        }
        String message = cause.getMessage();
        return message == null || message.isBlank() ? cause.getClass().getSimpleName() : message;
    }
}
