package nni.tuners.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.osgi.service.component.annotations.Component;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.Option;
import nni.api.searchspace.Parameter;
import nni.api.searchspace.SearchSpace;
import nni.api.searchspace.SearchSpaceException;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;
import nni.api.tuner.DispatcherException;
import nni.api.tuner.DispatcherProvider;

/**
 * NNI's advisors Hyperband and BOHB in Java ({@link HyperbandRun}), needing no Python. They answer
 * when a round's results are in rather than at once, so they are a {@link DispatcherProvider}, not
 * a tuner. Ranked above NNI's dispatcher: an {@code advisor: {name: Hyperband}} runs here unless its
 * section says {@code implementation: python}.
 *
 * <p>classArgs, NNI's names and defaults. Hyperband: {@code optimize_mode} (maximize), {@code R}
 * (60), {@code eta} (3), {@code exec_mode} (parallelism|serial). BOHB: {@code optimize_mode}
 * (maximize), {@code min_budget} (1), {@code max_budget} (3), {@code eta} (3),
 * {@code min_points_in_model} (parameters + 1), {@code top_n_percent} (15), {@code num_samples} (64),
 * {@code random_fraction} (1/3), {@code bandwidth_factor} (3), {@code min_bandwidth} (0.001).
 */
@Component(service = DispatcherProvider.class, property = {DispatcherProvider.IMPLEMENTATION + "=java",
        "nni.algorithm=Hyperband", "nni.algorithm=BOHB", "service.ranking:Integer=1"})
public class AdvisorProvider implements DispatcherProvider {

    /** The arithmetic's settings and, for BOHB, its model's, read from a section's classArgs. */
    record Advisor(HyperbandRun.Settings run, BohbModel.Settings model) {

        static Advisor of(AlgorithmSection section, ClassArgs args) {
            boolean minimize = args.minimize("maximize");
            if (isBohb(section)) {
                double min = args.integer("min_budget", 1L, 1, Long.MAX_VALUE);
                double max = args.integer("max_budget", 3L, 1, Long.MAX_VALUE);
                int eta = (int) Math.min(args.integer("eta", 3L, 2, Long.MAX_VALUE), Integer.MAX_VALUE);
                Long minPoints = args.integer("min_points_in_model", null, 0, Long.MAX_VALUE);
                BohbModel.Settings model = new BohbModel.Settings(minPoints == null ? null : (int) Math.min(minPoints, Integer.MAX_VALUE),
                        args.integer("top_n_percent", 15L, 1, 99).intValue(),
                        (int) Math.min(args.integer("num_samples", 64L, 1, Long.MAX_VALUE), 1_000_000),
                        args.number("random_fraction", 1.0 / 3, 0, 1),
                        args.number("bandwidth_factor", 3, Double.MIN_VALUE, Double.MAX_VALUE),
                        args.number("min_bandwidth", 1e-3, Double.MIN_VALUE, Double.MAX_VALUE));
                args.refused("config_space", "nni-osgi's BOHB reads the experiment's search space, not ConfigSpace files;"
                        + " write the space as searchSpace, or choose NNI's BOHB with implementation: python");
                if (max < min) {
                    args.problem("max_budget", "must be at least min_budget (" + (long) min + "), got " + (long) max);
                }
                return bounded(args, "max_budget", new Advisor(new HyperbandRun.Settings("BOHB", min, Math.max(min, max), eta,
                        minimize, HyperbandRun.Start.AFTER_LAST_ROUND_ENDED), model));
            }
            double r = args.integer("R", 60L, 1, Long.MAX_VALUE);
            int eta = (int) Math.min(args.integer("eta", 3L, 2, Long.MAX_VALUE), Integer.MAX_VALUE);
            String mode = args.oneOf("exec_mode", "parallelism", "parallelism", "serial");
            return bounded(args, "R", new Advisor(new HyperbandRun.Settings("Hyperband", 1, r, eta, minimize, mode.equals("serial")
                    ? HyperbandRun.Start.AFTER_LAST_ROUND_STARTED : HyperbandRun.Start.WHEN_IDLE), null));
        }

        /** Brackets are drawn whole when they start: one of millions of configurations is a mistake, not a plan. */
        private static Advisor bounded(ClassArgs args, String budget, Advisor advisor) {
            HyperbandRun.Settings run = advisor.run();
            int first = new Bracket(run.sMax(), run.sMax(), run.eta(), run.maxBudget(), run.minimize()).size(0);
            if (first > MAX_BRACKET || first < 0) {
                args.problem(budget, "with eta " + run.eta() + " the first bracket would start " + (first < 0 ? "billions of" : first)
                        + " trials; at most " + MAX_BRACKET + " are possible (a smaller " + budget + " or a larger eta)");
            }
            return advisor;
        }
    }

    /** The most configurations a bracket may start with. */
    static final int MAX_BRACKET = 100_000;

    private static boolean isBohb(AlgorithmSection section) {
        return section.name().orElse("").equalsIgnoreCase("BOHB");
    }

    @Override
    public List<ConfigProblem> checkAlgorithms(AlgorithmSection tuner, AlgorithmSection assessor) {
        ClassArgs args = new ClassArgs(tuner.classArgs());
        Advisor.of(tuner, args);
        List<ConfigProblem> problems = new ArrayList<>();
        args.problems().forEach(p -> problems.add(new ConfigProblem("tuner.classArgs." + p.path(), p.message())));
        if (assessor != null) {
            problems.add(new ConfigProblem("assessor", tuner.label() + " is an advisor: it stops trials itself and takes no assessor"));
        }
        return problems;
    }

    @Override
    public List<ConfigProblem> checkSearchSpace(AlgorithmSection tuner, Object searchSpace) {
        List<ConfigProblem> problems = new ArrayList<>(SearchSpace.check(searchSpace));
        if (problems.isEmpty() && isBohb(tuner)) {
            try {
                for (Parameter parameter : SearchSpace.parse(searchSpace).parameters()) {
                    if (parameter.options().stream().anyMatch(Option::nested)) {
                        problems.add(new ConfigProblem(parameter.name(), "BOHB does not read nested search spaces"));
                    }
                }
            } catch (SearchSpaceException e) {
                problems.add(new ConfigProblem("", e.getMessage()));
            }
        }
        return problems;
    }

    @Override
    public String runsThrough() {
        return "nni-osgi's Java implementation (no Python needed)";
    }

    @Override
    public Dispatcher start(DispatcherContext context) throws DispatcherException {
        Advisor advisor = Advisor.of(context.tuner(), new ClassArgs(context.tuner().classArgs()));
        Dims dims;
        try {
            dims = new Dims(SearchSpace.parse(context.searchSpace()));
        } catch (SearchSpaceException e) {
            throw new DispatcherException(advisor.run().algorithm() + " cannot read the search space: " + e.getMessage(), e);
        }
        SplittableRandom random = new SplittableRandom();
        return new HyperbandRun(context, advisor.run(), dims, (space, previous) -> advisor.model() == null
                ? budget -> space.sample(random) : new BohbModel(space, advisor.model(), random));
    }
}
