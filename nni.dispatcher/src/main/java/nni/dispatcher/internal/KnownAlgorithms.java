package nni.dispatcher.internal;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import nni.api.config.ConfigProblem;
import nni.api.config.Units;
import nni.api.searchspace.ParameterType;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.AlgorithmSection;

/**
 * NNI's built-in algorithms (its {@code builtin_algorithms.yml}, names matched ignoring case, aliases
 * too) and what each reads of a search space, from NNI's documented support matrix. A search space
 * is checked only as far as the chosen tuner reads it: the standard format and the types it
 * declares; algorithms with a format of their own and custom classes get it unchecked.
 */
final class KnownAlgorithms {

    enum Kind { TUNER, ADVISOR, ASSESSOR }

    /** How a tuner reads the search space. */
    enum Format {
        /** NNI's format, the types listed; nested choices too when {@code nested}. */
        STANDARD,
        /** BatchTuner: one parameter, a choice of whole configurations. */
        ONE_CHOICE,
        /** A format of the algorithm's own (NAS tuners): not checked. */
        OWN
    }

    record Known(String name, List<String> aliases, Kind kind, Format format, Set<ParameterType> types, boolean nested,
                 boolean numericChoices) {
        boolean answersTo(String asked) {
            return name.equalsIgnoreCase(asked) || aliases.stream().anyMatch(alias -> alias.equalsIgnoreCase(asked));
        }
    }

    private static final Set<ParameterType> ALL = EnumSet.allOf(ParameterType.class);
    private static final Set<ParameterType> SMAC = EnumSet.of(ParameterType.CHOICE, ParameterType.RANDINT, ParameterType.UNIFORM,
            ParameterType.QUNIFORM, ParameterType.LOGUNIFORM);
    private static final Set<ParameterType> METIS = EnumSet.of(ParameterType.CHOICE, ParameterType.RANDINT, ParameterType.UNIFORM,
            ParameterType.QUNIFORM);
    private static final Set<ParameterType> GAUSSIAN_PROCESS = EnumSet.of(ParameterType.CHOICE, ParameterType.RANDINT,
            ParameterType.UNIFORM, ParameterType.QUNIFORM, ParameterType.LOGUNIFORM, ParameterType.QLOGUNIFORM);

    static final List<Known> ALGORITHMS = List.of(
            standard("TPE", List.of(), ALL, true),
            standard("TPE_legacy", List.of(), ALL, true),
            standard("Random", List.of(), ALL, true),
            standard("Anneal", List.of(), ALL, true),
            standard("Evolution", List.of(), ALL, true),
            standard("GridSearch", List.of(), ALL, true),
            new Known("Batch", List.of("BatchTuner"), Kind.TUNER, Format.ONE_CHOICE, Set.of(ParameterType.CHOICE), false, false),
            standard("SMAC", List.of(), SMAC, false),
            numeric("Metis", List.of("MetisTuner"), METIS),
            numeric("GP", List.of("GPTuner"), GAUSSIAN_PROCESS),
            standard("PBT", List.of("PBTTuner"), ALL, false),
            numeric("DNGO", List.of("DNGOTuner"), GAUSSIAN_PROCESS),
            new Known("Hyperband", List.of(), Kind.ADVISOR, Format.STANDARD, ALL, false, false),
            new Known("BOHB", List.of(), Kind.ADVISOR, Format.STANDARD, ALL, false, false),
            own("NetworkMorphism", List.of()),
            own("PPO", List.of("PPOTuner")),
            own("RegularizedEvolutionTuner", List.of()),
            new Known("Medianstop", List.of(), Kind.ASSESSOR, Format.OWN, Set.of(), false, false),
            new Known("Curvefitting", List.of(), Kind.ASSESSOR, Format.OWN, Set.of(), false, false));

    private KnownAlgorithms() {
    }

    private static Known standard(String name, List<String> aliases, Set<ParameterType> types, boolean nested) {
        return new Known(name, aliases, Kind.TUNER, Format.STANDARD, types, nested, false);
    }

    private static Known numeric(String name, List<String> aliases, Set<ParameterType> types) {
        return new Known(name, aliases, Kind.TUNER, Format.STANDARD, types, false, true);
    }

    private static Known own(String name, List<String> aliases) {
        return new Known(name, aliases, Kind.TUNER, Format.OWN, Set.of(), false, false);
    }

    /** @return every name and alias, for the service property the manager finds algorithms by */
    static List<String> names() {
        List<String> names = new ArrayList<>();
        for (Known known : ALGORITHMS) {
            names.add(known.name());
            names.addAll(known.aliases());
        }
        return names;
    }

    static Optional<Known> find(String name) {
        return ALGORITHMS.stream().filter(known -> known.answersTo(name)).findFirst();
    }

    /** @return whether the algorithm reads intermediate results: an assessor is there, or the tuner may be an advisor */
    static boolean wantsIntermediateResults(AlgorithmSection tuner, AlgorithmSection assessor) {
        return assessor != null || tuner.className().isPresent()
                || tuner.name().flatMap(KnownAlgorithms::find).map(known -> known.kind() == Kind.ADVISOR).orElse(false);
    }

    /** @return the problems of the sections: a name of the wrong kind, an optimize_mode NNI does not know */
    static List<ConfigProblem> checkSections(AlgorithmSection tuner, AlgorithmSection assessor) {
        List<ConfigProblem> problems = new ArrayList<>();
        check(tuner, "tuner", false, problems);
        if (assessor != null) {
            check(assessor, "assessor", true, problems);
        }
        return problems;
    }

    private static void check(AlgorithmSection section, String key, boolean assessor, List<ConfigProblem> problems) {
        Object mode = section.classArgs().get("optimize_mode");
        if (mode != null && !List.of("maximize", "minimize").contains(mode)) {
            problems.add(new ConfigProblem(key + ".classArgs.optimize_mode", "expected maximize or minimize, got "
                    + Units.describe(mode)));
        }
        Optional<Known> known = section.name().flatMap(KnownAlgorithms::find);
        if (known.isPresent() && (known.get().kind() == Kind.ASSESSOR) != assessor) {
            problems.add(new ConfigProblem(key + ".name", known.get().name() + " is " + (assessor ? "a tuner" : "an assessor")
                    + ", not " + (assessor ? "an assessor" : "a tuner")));
        }
        if (section.name().isPresent() && known.isEmpty()) {
            problems.add(new ConfigProblem(key + ".name", "no " + (assessor ? "assessor" : "tuner") + " named \""
                    + section.name().get() + "\" in NNI; NNI's are " + String.join(", ", names())));
        }
    }

    /**
     * @return the problems of the search space for the tuner, paths relative to the space; none for a
     *         custom class or an algorithm with its own format
     */
    static List<ConfigProblem> checkSearchSpace(AlgorithmSection tuner, Object space) {
        Optional<Known> known = tuner.name().flatMap(KnownAlgorithms::find);
        if (known.isEmpty() || known.get().format() == Format.OWN) {
            return List.of();
        }
        if (known.get().format() == Format.ONE_CHOICE) {
            return oneChoice(known.get(), space);
        }
        List<ConfigProblem> problems = new ArrayList<>(SearchSpace.check(space));
        if (problems.isEmpty() && space instanceof Map<?, ?> map) {
            types(known.get(), map, "", problems);
        }
        return problems;
    }

    private static void types(Known known, Map<?, ?> space, String path, List<ConfigProblem> problems) {
        for (Map.Entry<?, ?> entry : space.entrySet()) {
            if (!(entry.getValue() instanceof Map<?, ?> spec)) {
                continue; // a nested space's _name
            }
            String at = path.isEmpty() ? String.valueOf(entry.getKey()) : path + "." + entry.getKey();
            ParameterType type = ParameterType.of(String.valueOf(spec.get("_type"))).orElseThrow();
            if (!known.types().contains(type)) {
                problems.add(new ConfigProblem(at + "._type", known.name() + " does not read " + type.nniName() + "; it reads "
                        + String.join(", ", known.types().stream().map(ParameterType::nniName).toList())));
                continue;
            }
            if (type != ParameterType.CHOICE || !(spec.get("_value") instanceof List<?> options)) {
                continue;
            }
            for (int i = 0; i < options.size(); i++) {
                Object option = options.get(i);
                if (option instanceof Map<?, ?> nested) {
                    if (!known.nested()) {
                        problems.add(new ConfigProblem(at + "._value[" + i + "]", known.name()
                                + " does not read nested search spaces"));
                        break;
                    }
                    types(known, nested, at + "._value[" + i + "]", problems);
                } else if (known.numericChoices() && !(option instanceof Number)) {
                    problems.add(new ConfigProblem(at + "._value[" + i + "]", known.name() + " reads choices of numbers only, got "
                            + Units.describe(option)));
                    break;
                }
            }
        }
    }

    private static List<ConfigProblem> oneChoice(Known known, Object space) {
        if (space instanceof Map<?, ?> map && map.size() == 1 && map.values().iterator().next() instanceof Map<?, ?> spec
                && "choice".equals(spec.get("_type")) && spec.get("_value") instanceof List<?>) {
            return List.of();
        }
        return List.of(new ConfigProblem("", known.name() + " reads exactly one parameter, a choice of the configurations"
                + " to run (" + String.format(Locale.ROOT, "{\"combine\": {\"_type\": \"choice\", \"_value\": [...]}}") + ")"));
    }
}
