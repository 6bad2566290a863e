package nni.shell.internal.launch;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.namespace.PackageNamespace;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;
import org.osgi.framework.wiring.FrameworkWiring;

/**
 * Why a bundle cannot resolve, in words: the requirements nothing provides (a package no bundle
 * exports and the JRE lacks), else those whose only providers cannot resolve either. The
 * framework tells it only in the exception of a {@code start}, which FileInstall logs and drops.
 * (The launcher tells its own bundles' failures the same way, in {@code nni.launcher.StartFailures}:
 * it runs outside the framework, where this class is not.)
 */
final class UnresolvedBundle {

    private static final Pattern PACKAGE = Pattern.compile("\\(" + Pattern.quote(PackageNamespace.PACKAGE_NAMESPACE) + "=([^)]*)\\)");

    private UnresolvedBundle() {
    }

    /** @return what the bundle needs and cannot get, e.g. {@code it needs package a.b, which no bundle provides and this Java lacks} */
    static String lacks(FrameworkWiring wiring, Bundle bundle) {
        List<String> unprovided = new ArrayList<>();
        Set<String> unresolvedProviders = new TreeSet<>();
        BundleRevision revision = bundle.adapt(BundleRevision.class);
        for (BundleRequirement requirement : revision == null ? List.<BundleRequirement>of() : revision.getDeclaredRequirements(null)) {
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
            return "it needs " + String.join(", ", unprovided) + ", which no bundle provides and this Java ("
                    + System.getProperty("java.home") + ") lacks";
        }
        if (!unresolvedProviders.isEmpty()) {
            return "it needs bundle " + String.join(", ", unresolvedProviders) + ", which cannot resolve";
        }
        return "its requirements conflict with what the runtime's bundles use (log/nni.log has the framework's words)";
    }

    private static boolean optional(BundleRequirement requirement) {
        Map<String, String> directives = requirement.getDirectives();
        String resolution = directives.get(Constants.RESOLUTION_DIRECTIVE);
        return Constants.RESOLUTION_OPTIONAL.equals(resolution) || PackageNamespace.RESOLUTION_DYNAMIC.equals(resolution)
                || !Constants.EFFECTIVE_RESOLVE.equals(directives.getOrDefault(Constants.EFFECTIVE_DIRECTIVE, Constants.EFFECTIVE_RESOLVE));
    }

    /** @return {@code package javax.management.remote.rmi}, or for other requirements their namespace and filter */
    private static String what(BundleRequirement requirement) {
        String filter = requirement.getDirectives().getOrDefault(Constants.FILTER_DIRECTIVE, "");
        if (PackageNamespace.PACKAGE_NAMESPACE.equals(requirement.getNamespace())) {
            Matcher name = PACKAGE.matcher(filter);
            if (name.find()) {
                return "package " + name.group(1);
            }
        }
        return requirement.getNamespace() + " " + filter;
    }
}
