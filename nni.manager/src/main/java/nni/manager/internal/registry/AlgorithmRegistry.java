package nni.manager.internal.registry;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import nni.config.AlgorithmChoice;
import nni.api.experiment.AlgorithmView;
import nni.api.experiment.InstalledAlgorithms;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.TunerProvider;
import nni.config.AlgorithmConfig;

/**
 * Every tuner and assessor in the service registry, by algorithm name (matched ignoring case, as
 * NNI matches {@code builtinTunerName}). Found exactly as platforms are, so a third-party bundle adds
 * an algorithm by registering a {@link TunerProvider} or {@link AssessorProvider}, or many at once
 * (custom classes included) by registering a {@link DispatcherProvider}. {@link #choose} decides
 * which runs an experiment's tuner and assessor; whatever it chooses is a dispatcher provider: Java
 * providers run through the one registered with {@value DispatcherProvider#RUNS_PROVIDERS}
 * (bundle nni.tuners), so the Java providers are known here by name only, to choose and list them.
 */
@Component(service = {AlgorithmRegistry.class, InstalledAlgorithms.class}, immediate = true)
public class AlgorithmRegistry implements AlgorithmLookup, InstalledAlgorithms {

    private static final Logger LOG = LoggerFactory.getLogger(AlgorithmRegistry.class);

    private final NamedServices<TunerProvider> tuners =
            new NamedServices<>(TunerProvider.ALGORITHM, name -> name.toLowerCase(Locale.ROOT));
    private final NamedServices<AssessorProvider> assessors =
            new NamedServices<>(TunerProvider.ALGORITHM, name -> name.toLowerCase(Locale.ROOT));

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTuner(ServiceReference<TunerProvider> reference, TunerProvider provider) {
        tuners.add(reference, provider).ifPresent(e -> LOG.debug("tuner '{}' bound from {}", e.name(), e.bundleName()));
    }

    void unbindTuner(ServiceReference<TunerProvider> reference) {
        tuners.remove(reference);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindAssessor(ServiceReference<AssessorProvider> reference, AssessorProvider provider) {
        assessors.add(reference, provider).ifPresent(e -> LOG.debug("assessor '{}' bound from {}", e.name(), e.bundleName()));
    }

    void unbindAssessor(ServiceReference<AssessorProvider> reference) {
        assessors.remove(reference);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindDispatcher(ServiceReference<DispatcherProvider> reference, DispatcherProvider provider) {
        if (Boolean.parseBoolean(String.valueOf(reference.getProperty(DispatcherProvider.RUNS_PROVIDERS)))) {
            synchronized (runners) {
                runners.add(new DispatcherEntry(reference, provider, Set.of(), false, JAVA));
                runners.sort((a, b) -> b.reference().compareTo(a.reference()));
            }
            LOG.debug("the runner of Java tuners and assessors bound from {}", reference.getBundle());
            return;
        }
        DispatcherEntry entry = new DispatcherEntry(reference, provider, names(reference.getProperty(TunerProvider.ALGORITHM)),
                Boolean.parseBoolean(String.valueOf(reference.getProperty(DispatcherProvider.CLASSES))),
                String.valueOf(reference.getProperty(DispatcherProvider.IMPLEMENTATION)));
        synchronized (dispatchers) {
            dispatchers.add(entry);
            dispatchers.sort((a, b) -> b.reference().compareTo(a.reference()));
        }
        LOG.debug("dispatcher '{}' bound ({} algorithms{})", entry.implementation(), entry.names().size(),
                entry.classes() ? ", custom classes" : "");
    }

    void unbindDispatcher(ServiceReference<DispatcherProvider> reference) {
        synchronized (runners) {
            runners.removeIf(entry -> entry.reference().equals(reference));
        }
        synchronized (dispatchers) {
            dispatchers.removeIf(entry -> entry.reference().equals(reference));
        }
    }

    private static Set<String> names(Object property) {
        Collection<?> values = property instanceof String[] array ? List.of(array)
                : property instanceof Collection<?> collection ? collection : property == null ? List.of() : List.of(property);
        Set<String> names = new LinkedHashSet<>();
        values.forEach(value -> names.add(String.valueOf(value).trim()));
        return names;
    }

    /**
     * A dispatcher provider and what it claims to run.
     *
     * @param names          the algorithm names it runs, as it spells them
     * @param classes        whether it runs custom classes
     * @param implementation what {@code implementation:} chooses it
     */
    public record DispatcherEntry(ServiceReference<?> reference, DispatcherProvider provider, Set<String> names,
                                  boolean classes, String implementation) {
        /** @return whether it runs the section (a null section: there is none to run) */
        public boolean runs(AlgorithmConfig section) {
            if (section == null) {
                return true;
            }
            if (section.className() != null) {
                return classes;
            }
            return names.stream().anyMatch(name -> name.equalsIgnoreCase(section.name()));
        }
    }

    private final List<DispatcherEntry> dispatchers = new ArrayList<>();
    /** The providers that run the Java providers, best-ranked first; kept apart: they name no algorithm of their own. */
    private final List<DispatcherEntry> runners = new ArrayList<>();

    /** The value of an algorithm section's {@code implementation:} that asks for the Java providers. */
    public static final String JAVA = "java";

    /**
     * Chooses what runs an experiment's tuner and assessor: the Java providers when both have one
     * and neither section asks for another {@code implementation}; else the best-ranked dispatcher
     * provider that runs both (custom classes only ever run there). {@code implementation: java}
     * also accepts a dispatcher provider implemented in Java (Hyperband and BOHB in nni.tuners).
     *
     * @param assessor the assessor section, or null
     */
    public AlgorithmChoice choose(AlgorithmConfig tuner, AlgorithmConfig assessor) {
        return choose(tuner, assessor, this);
    }

    @Override
    public List<AlgorithmView> algorithms() {
        List<AlgorithmView> views = new ArrayList<>();
        tunerEntries().forEach(e -> views.add(AlgorithmView.builder(AlgorithmView.TUNER).names(List.of(e.name()))
                .bundle(e.bundleName()).version(e.bundleVersion()).build()));
        assessorEntries().forEach(e -> views.add(AlgorithmView.builder(AlgorithmView.ASSESSOR).names(List.of(e.name()))
                .bundle(e.bundleName()).version(e.bundleVersion()).build()));
        for (DispatcherEntry dispatcher : dispatchers()) {
            var bundle = dispatcher.reference().getBundle();
            views.add(AlgorithmView.builder(JAVA.equalsIgnoreCase(dispatcher.implementation()) ? AlgorithmView.ADVISOR
                            : AlgorithmView.NNI_DISPATCHER)
                    .names(dispatcher.names().stream().sorted().toList())
                    .bundle(bundle == null ? "?" : bundle.getSymbolicName())
                    .version(bundle == null ? "?" : bundle.getVersion().toString()).build());
        }
        return views;
    }

    @Override
    public Optional<DispatcherProvider> javaRunner() {
        synchronized (runners) {
            return runners.stream().findFirst().map(DispatcherEntry::provider);
        }
    }

    @Override
    public List<DispatcherEntry> dispatchers() {
        synchronized (dispatchers) {
            return List.copyOf(dispatchers);
        }
    }

    /** {@link #choose(AlgorithmConfig, AlgorithmConfig)} among what {@code installed} has. */
    public static AlgorithmChoice choose(AlgorithmConfig tuner, AlgorithmConfig assessor, AlgorithmLookup installed) {
        String asked = implementationAsked(tuner, assessor);
        boolean custom = tuner.className() != null || (assessor != null && assessor.className() != null);
        if (!custom && (asked == null || asked.equalsIgnoreCase(JAVA))) {
            Optional<TunerProvider> javaTuner = installed.tuner(tuner.name());
            Optional<AssessorProvider> javaAssessor = assessor == null ? Optional.empty() : installed.assessor(assessor.name());
            if (javaTuner.isPresent() && (assessor == null || javaAssessor.isPresent())) {
                Optional<DispatcherProvider> runner = installed.javaRunner();
                if (runner.isPresent()) {
                    return new AlgorithmChoice.JavaAlgorithms(runner.get());
                }
                if (asked != null) {
                    return runnerMissing(tuner);
                } // else another provider may run them
            } else if (asked != null && !javaDispatcherRuns(tuner, assessor, installed)) {
                return javaTuner.isEmpty() ? new AlgorithmChoice.Unavailable(key(tuner, "tuner"), "no Java tuner named \"" + tuner.name()
                        + "\" is installed; installed: " + String.join(", ", installed.tunerNames()))
                        : new AlgorithmChoice.Unavailable("assessor.name", "no Java assessor named \"" + assessor.name()
                        + "\" is installed; installed: " + String.join(", ", installed.assessorNames()));
            }
        }
        List<DispatcherEntry> candidates = installed.dispatchers();
        for (DispatcherEntry entry : candidates) {
            if (entry.runs(tuner) && entry.runs(assessor) && (asked == null || asked.equalsIgnoreCase(entry.implementation()))) {
                return new AlgorithmChoice.ThroughDispatcher(entry.provider());
            }
        }
        return unavailable(tuner, assessor, asked, installed);
    }

    /** @return whether a dispatcher provider implemented in Java (the advisors Hyperband and BOHB) runs both */
    private static boolean javaDispatcherRuns(AlgorithmConfig tuner, AlgorithmConfig assessor, AlgorithmLookup installed) {
        return installed.dispatchers().stream().anyMatch(entry -> JAVA.equalsIgnoreCase(entry.implementation())
                && entry.runs(tuner) && entry.runs(assessor));
    }

    private static String implementationAsked(AlgorithmConfig tuner, AlgorithmConfig assessor) {
        if (tuner.implementation() != null) {
            return tuner.implementation();
        }
        return assessor == null ? null : assessor.implementation();
    }

    private static String key(AlgorithmConfig section, String kind) {
        return kind + (section.className() != null ? ".className" : ".name");
    }

    private static AlgorithmChoice.Unavailable runnerMissing(AlgorithmConfig tuner) {
        return new AlgorithmChoice.Unavailable(key(tuner, "tuner"), "Java tuners and assessors run through bundle nni.tuners, which is not installed");
    }

    private static AlgorithmChoice.Unavailable unavailable(AlgorithmConfig tuner, AlgorithmConfig assessor, String asked, AlgorithmLookup installed) {
        List<DispatcherEntry> candidates = installed.dispatchers();
        if (installed.javaRunner().isEmpty() && tuner.className() == null && installed.tuner(tuner.name()).isPresent()
                && (assessor == null || (assessor.className() == null && installed.assessor(assessor.name()).isPresent()))) {
            return runnerMissing(tuner);
        }
        if (asked != null && candidates.stream().noneMatch(entry -> asked.equalsIgnoreCase(entry.implementation()))) {
            List<String> known = new ArrayList<>(List.of(JAVA));
            candidates.stream().map(DispatcherEntry::implementation)
                    .filter(name -> known.stream().noneMatch(name::equalsIgnoreCase)).forEach(known::add);
            return new AlgorithmChoice.Unavailable((tuner.implementation() != null ? "tuner" : "assessor") + ".implementation",
                    "expected " + String.join(" or ", known) + ", got \"" + asked + "\"");
        }
        boolean tunerRuns = candidates.stream().anyMatch(entry -> entry.runs(tuner))
                || (tuner.className() == null && installed.tuner(tuner.name()).isPresent());
        AlgorithmConfig missing = tunerRuns && assessor != null ? assessor : tuner;
        String kind = missing == tuner ? "tuner" : "assessor";
        if (missing.className() != null) {
            return new AlgorithmChoice.Unavailable(kind + ".className", "custom " + kind + " classes run through NNI's dispatcher, and no"
                    + " dispatcher is installed (bundle nni.dispatcher)");
        }
        List<String> names = new ArrayList<>(kind.equals("tuner") ? installed.tunerNames() : installed.assessorNames());
        candidates.forEach(entry -> entry.names().stream()
                .filter(n -> names.stream().noneMatch(known -> known.equalsIgnoreCase(n))).forEach(names::add));
        return new AlgorithmChoice.Unavailable(kind + ".name", "no " + kind + " named \"" + missing.name() + "\" is installed; installed: "
                + String.join(", ", names));
    }

    /** @return whether this registry has bound the tuner, assessor or dispatcher service registered with this {@code service.id} */
    public boolean binds(long serviceId) {
        if (tuners.contains(serviceId) || assessors.contains(serviceId)) {
            return true;
        }
        synchronized (runners) {
            if (runners.stream().anyMatch(entry -> NamedServices.serviceId(entry.reference()) == serviceId)) {
                return true;
            }
        }
        synchronized (dispatchers) {
            return dispatchers.stream().anyMatch(entry -> NamedServices.serviceId(entry.reference()) == serviceId);
        }
    }

    @Override
    public Optional<TunerProvider> tuner(String name) {
        return tuners.get(name).map(NamedServices.Entry::service);
    }

    @Override
    public Optional<AssessorProvider> assessor(String name) {
        return assessors.get(name).map(NamedServices.Entry::service);
    }

    @Override
    public List<String> tunerNames() {
        return tuners.names();
    }

    @Override
    public List<String> assessorNames() {
        return assessors.names();
    }

    /** @return the answering tuner of every name, with its bundle */
    public List<NamedServices.Entry<TunerProvider>> tunerEntries() {
        return tuners.active();
    }

    /** @return the answering assessor of every name, with its bundle */
    public List<NamedServices.Entry<AssessorProvider>> assessorEntries() {
        return assessors.active();
    }
}
