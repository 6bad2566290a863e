package nni.config;

import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import nni.api.platform.TrainingPlatform;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.TunerProvider;
import nni.manager.internal.registry.AlgorithmRegistry;

/** Builds loaders over the real platform and algorithm objects, outside a framework. */
public final class Loaders {

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
        return with(platforms, tuners, assessors, List.of());
    }

    /** @param dispatchers dispatcher providers, best first */
    static ExperimentConfigLoader with(Map<String, TrainingPlatform> platforms, Map<String, TunerProvider> tuners,
            Map<String, AssessorProvider> assessors, List<AlgorithmRegistry.DispatcherEntry> dispatchers) {
        // the Java providers run as in the runtime: through nni.tuners' runner, which finds them by name
        nni.tuners.internal.JavaAlgorithmsProvider runner = new nni.tuners.internal.JavaAlgorithmsProvider();
        tuners.forEach(runner::addTuner);
        assessors.forEach(runner::addAssessor);
        nni.manager.internal.registry.AlgorithmLookup algorithms = new nni.manager.internal.registry.AlgorithmLookup() {
            @Override
            public Optional<nni.api.tuner.DispatcherProvider> javaRunner() {
                return Optional.of(runner);
            }

            @Override
            public Optional<TunerProvider> tuner(String name) {
                return Optional.ofNullable(tuners.get(name.toLowerCase(Locale.ROOT)));
            }

            @Override
            public Optional<AssessorProvider> assessor(String name) {
                return Optional.ofNullable(assessors.get(name.toLowerCase(Locale.ROOT)));
            }

            @Override
            public List<String> tunerNames() {
                return List.copyOf(tuners.keySet());
            }

            @Override
            public List<String> assessorNames() {
                return List.copyOf(assessors.keySet());
            }

            @Override
            public List<AlgorithmRegistry.DispatcherEntry> dispatchers() {
                return dispatchers;
            }
        };
        return new ExperimentConfigLoader(name -> Optional.ofNullable(platforms.get(name)),
                (tuner, assessor) -> AlgorithmRegistry.choose(tuner, assessor, algorithms), () -> List.copyOf(platforms.keySet()));
    }

    /**
     * Every built-in platform of this project, every built-in algorithm (Java advisors included), NNI's
     * dispatcher and the v1 file format.
     */
    public static ExperimentConfigLoader builtIn() {
        ExperimentConfigLoader loader = withoutFormats();
        loader.addFormat(new nni.config.v1.internal.V1Format(), Map.of());
        return loader;
    }

    /** {@link #builtIn} without any file format but v2: as a runtime without nni.config.v1. */
    static ExperimentConfigLoader withoutFormats() {
        Map<String, TrainingPlatform> platforms = new LinkedHashMap<>();
        platforms.put("local", new nni.ts.local.internal.LocalPlatform(defaults(nni.ts.local.internal.LocalPlatform.Config.class)));
        platforms.put("remote", new nni.ts.remote.internal.RemotePlatform(defaults(nni.ts.remote.internal.RemotePlatform.Config.class), null));
        platforms.put("openpai", new nni.ts.openpai.internal.OpenpaiPlatform(defaults(nni.ts.openpai.internal.OpenpaiPlatform.Config.class), null));
        nni.ts.k8s.KubernetesPlatformConfig kubernetes = defaults(nni.ts.k8s.KubernetesPlatformConfig.class);
        platforms.put("kubeflow", new nni.ts.kubeflow.internal.KubeflowPlatform(kubernetes, null));
        platforms.put("frameworkcontroller", new nni.ts.frameworkcontroller.internal.FrameworkControllerPlatform(kubernetes, null));
        platforms.put("adl", new nni.ts.adaptdl.internal.AdaptdlPlatform(kubernetes, null));
        platforms.put("dlts", new nni.ts.dlts.internal.DltsPlatform(defaults(nni.ts.dlts.internal.DltsPlatform.Config.class), null));
        platforms.put("aml", new nni.ts.aml.internal.AmlPlatform(defaults(nni.ts.aml.internal.AmlPlatform.Config.class), null));
        platforms.put("dlc", new nni.ts.dlc.internal.DlcPlatform(defaults(nni.ts.dlc.internal.DlcPlatform.Config.class), null));
        Map<String, TunerProvider> tuners = new LinkedHashMap<>();
        tuners.put("random", new nni.tuners.internal.RandomTunerProvider());
        tuners.put("gridsearch", new nni.tuners.internal.GridSearchTunerProvider());
        tuners.put("tpe", new nni.tuners.internal.TpeTunerProvider());
        tuners.put("anneal", new nni.tuners.internal.AnnealTunerProvider());
        tuners.put("evolution", new nni.tuners.internal.EvolutionTunerProvider());
        return with(platforms, tuners, Map.of("medianstop", new nni.tuners.internal.MedianstopAssessorProvider()),
                List.of(javaAdvisors(), nniDispatcher()));
    }

    /** Hyperband and BOHB in Java as the runtime registers them: ranked before NNI's dispatcher. */
    static AlgorithmRegistry.DispatcherEntry javaAdvisors() {
        return new AlgorithmRegistry.DispatcherEntry(null, new nni.tuners.internal.AdvisorProvider(),
                java.util.Set.of("Hyperband", "BOHB"), false, "java");
    }

    /** NNI's dispatcher as the runtime registers it (its checks need no channel). */
    static AlgorithmRegistry.DispatcherEntry nniDispatcher() {
        nni.dispatcher.internal.NniDispatcherProvider provider = new nni.dispatcher.internal.NniDispatcherProvider(
                defaults(nni.dispatcher.internal.NniDispatcherProvider.Config.class), null);
        return new AlgorithmRegistry.DispatcherEntry(null, provider, java.util.Set.copyOf(
                nni.dispatcher.internal.NniDispatcherProvider.algorithmNames()), true, "python");
    }
}
