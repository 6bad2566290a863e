package nni.tuners.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.searchspace.SearchSpaceException;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Assessor;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherException;
import nni.api.tuner.DispatcherProvider;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;

/**
 * Runs the Java algorithms: every {@link TunerProvider} and {@link AssessorProvider} in the service
 * registry, this bundle's and any other's (a whiteboard, taken and let go while experiments run),
 * as one {@link DispatcherProvider}, so that the manager speaks the dispatcher protocol only. The
 * manager finds it by {@value DispatcherProvider#RUNS_PROVIDERS} and gives it the experiments whose
 * tuner and assessor both have a Java provider; each run is a {@link JavaAlgorithmRun}.
 */
@Component(service = DispatcherProvider.class, property = {DispatcherProvider.IMPLEMENTATION + "=java",
        DispatcherProvider.RUNS_PROVIDERS + ":Boolean=true"})
public class JavaAlgorithmsProvider implements DispatcherProvider {

    private final NamedProviders<TunerProvider> tuners = new NamedProviders<>();
    private final NamedProviders<AssessorProvider> assessors = new NamedProviders<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindTuner(ServiceReference<TunerProvider> reference, TunerProvider provider) {
        tuners.add(reference, provider);
    }

    void unbindTuner(ServiceReference<TunerProvider> reference) {
        tuners.remove(reference);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindAssessor(ServiceReference<AssessorProvider> reference, AssessorProvider provider) {
        assessors.add(reference, provider);
    }

    void unbindAssessor(ServiceReference<AssessorProvider> reference) {
        assessors.remove(reference);
    }

    /** Adds a tuner outside a framework (tests), ranked below registered ones. */
    public void addTuner(String name, TunerProvider provider) {
        tuners.add(name, null, provider);
    }

    /** Adds an assessor outside a framework (tests), ranked below registered ones. */
    public void addAssessor(String name, AssessorProvider provider) {
        assessors.add(name, null, provider);
    }

    @Override
    public List<ConfigProblem> checkAlgorithms(AlgorithmSection tuner, AlgorithmSection assessor) {
        List<ConfigProblem> problems = new ArrayList<>();
        Optional<TunerProvider> tunerProvider = tuners.get(tuner.label());
        if (tunerProvider.isEmpty() || tuner.className().isPresent()) {
            problems.add(missing("tuner", tuner, tuners.names()));
        } else {
            tunerProvider.get().checkArguments(tuner.classArgs()).forEach(p -> problems.add(underClassArgs("tuner", p)));
        }
        if (assessor != null) {
            Optional<AssessorProvider> assessorProvider = assessors.get(assessor.label());
            if (assessorProvider.isEmpty() || assessor.className().isPresent()) {
                problems.add(missing("assessor", assessor, assessors.names()));
            } else {
                assessorProvider.get().checkArguments(assessor.classArgs())
                        .forEach(p -> problems.add(underClassArgs("assessor", p)));
            }
        }
        return problems;
    }

    private static ConfigProblem missing(String kind, AlgorithmSection section, List<String> installed) {
        return new ConfigProblem(kind + ".name", "no Java " + kind + " named \"" + section.label() + "\" is installed; installed: "
                + String.join(", ", installed));
    }

    private static ConfigProblem underClassArgs(String kind, ConfigProblem problem) {
        return new ConfigProblem(kind + ".classArgs" + (problem.path().isEmpty() ? "" : "." + problem.path()), problem.message());
    }

    /**
     * Java tuners read the whole search space: all of it is checked, then the tuner is made for it
     * ({@link TunerProvider#create} is side-effect free) when its arguments are valid, so that a space
     * its algorithm cannot handle (GridSearch and no parameter) is refused here, before an experiment
     * exists or a running tuner is given it.
     */
    @Override
    public List<ConfigProblem> checkSearchSpace(AlgorithmSection tuner, Object searchSpace) {
        List<ConfigProblem> problems = SearchSpace.check(searchSpace);
        Optional<TunerProvider> provider = tuner.name().flatMap(tuners::get);
        if (!problems.isEmpty() || provider.isEmpty() || !provider.get().checkArguments(tuner.classArgs()).isEmpty()) {
            return problems;
        }
        try {
            provider.get().create(tuner.classArgs(), SearchSpace.parse(searchSpace));
            return List.of();
        } catch (SearchSpaceException | IllegalArgumentException e) {
            return List.of(new ConfigProblem("", e.getMessage()));
        }
    }

    @Override
    public String runsThrough() {
        return "nni-osgi's Java tuners and assessors (no Python needed)";
    }

    /** Makes the tuner and the assessor from their providers; what refuses to be made is named as the manager names it. */
    @Override
    public Dispatcher start(DispatcherContext context) throws DispatcherException {
        AlgorithmSection tunerSection = context.tuner();
        TunerProvider tunerProvider = tunerSection.name().flatMap(tuners::get)
                .orElseThrow(() -> new DispatcherException("tuner.name: no Java tuner named \"" + tunerSection.label()
                        + "\" is installed (any more)"));
        Tuner tuner;
        try {
            tuner = tunerProvider.create(tunerSection.classArgs(), SearchSpace.parse(context.searchSpace()));
        } catch (SearchSpaceException e) {
            throw new DispatcherException("searchSpace: " + e.getMessage(), e);
        } catch (IllegalArgumentException e) {
            throw new DispatcherException("tuner " + tunerSection.label() + ": " + e.getMessage(), e);
        }
        Assessor assessor = null;
        Optional<AlgorithmSection> assessorSection = context.assessor();
        if (assessorSection.isPresent()) {
            AlgorithmSection section = assessorSection.get();
            AssessorProvider assessorProvider = section.name().flatMap(assessors::get)
                    .orElseThrow(() -> new DispatcherException("assessor.name: no Java assessor named \"" + section.label()
                            + "\" is installed (any more)"));
            try {
                assessor = assessorProvider.create(section.classArgs());
            } catch (IllegalArgumentException e) {
                throw new DispatcherException("assessor " + section.label() + ": " + e.getMessage(), e);
            }
        }
        return new JavaAlgorithmRun(context, tuner, assessor);
    }
}
