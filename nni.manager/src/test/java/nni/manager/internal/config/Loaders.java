package nni.manager.internal.config;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.platform.TrainingPlatform;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.TunerProvider;

/** Builds loaders over real platform objects, outside a framework. */
final class Loaders {

    /** A tuner that takes no classArgs; it is never asked to create a tuner here. */
    static final TunerProvider ARGUMENTLESS = new TunerProvider() {
        @Override
        public List<nni.api.config.ConfigProblem> checkArguments(Map<String, Object> classArgs) {
            return classArgs.keySet().stream().map(k -> new nni.api.config.ConfigProblem(k, "unknown argument")).toList();
        }

        @Override
        public nni.api.tuner.Tuner create(Map<String, Object> classArgs, nni.api.searchspace.SearchSpace searchSpace) {
            throw new UnsupportedOperationException("not needed by config tests");
        }
    };

    private Loaders() {
    }

    /** @return an instance of a component-property annotation whose methods return their defaults */
    @SuppressWarnings("unchecked")
    static <A> A defaults(Class<A> type) {
        return (A) Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, method, args) -> method.getDefaultValue());
    }

    static ExperimentConfigLoader with(Map<String, TrainingPlatform> platforms, Map<String, TunerProvider> tuners,
            Map<String, AssessorProvider> assessors) {
        return new ExperimentConfigLoader(name -> Optional.ofNullable(platforms.get(name)),
                name -> Optional.ofNullable(tuners.get(name.toLowerCase(java.util.Locale.ROOT))),
                name -> Optional.ofNullable(assessors.get(name.toLowerCase(java.util.Locale.ROOT))),
                kind -> switch (kind) {
                    case "tuner" -> List.copyOf(tuners.keySet());
                    case "assessor" -> List.copyOf(assessors.keySet());
                    default -> List.copyOf(platforms.keySet());
                });
    }

    /** A loader with the local platform and no algorithms. */
    static ExperimentConfigLoader local() {
        return with(Map.of("local", new nni.ts.local.internal.LocalPlatform(
                defaults(nni.ts.local.internal.LocalPlatform.Config.class))), Map.of("random", ARGUMENTLESS), Map.of());
    }
}
