package nni.manager.internal.config;

import java.lang.reflect.Proxy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import nni.api.platform.TrainingPlatform;
import nni.api.tuner.AssessorProvider;
import nni.api.tuner.TunerProvider;

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
        return new ExperimentConfigLoader(name -> Optional.ofNullable(platforms.get(name)),
                name -> Optional.ofNullable(tuners.get(name.toLowerCase(Locale.ROOT))),
                name -> Optional.ofNullable(assessors.get(name.toLowerCase(Locale.ROOT))),
                kind -> switch (kind) {
                    case "tuner" -> List.copyOf(tuners.keySet());
                    case "assessor" -> List.copyOf(assessors.keySet());
                    default -> List.copyOf(platforms.keySet());
                });
    }

    /** Every built-in platform of this project and every built-in algorithm. */
    public static ExperimentConfigLoader builtIn() {
        Map<String, TrainingPlatform> platforms = new LinkedHashMap<>();
        platforms.put("local", new nni.ts.local.internal.LocalPlatform(defaults(nni.ts.local.internal.LocalPlatform.Config.class)));
        platforms.put("remote", new nni.ts.remote.internal.RemotePlatform(defaults(nni.ts.remote.internal.RemotePlatform.Config.class), null));
        platforms.put("openpai", new nni.ts.openpai.internal.OpenpaiPlatform(defaults(nni.ts.openpai.internal.OpenpaiPlatform.Config.class), null));
        nni.ts.k8s.KubernetesPlatformConfig kubernetes = defaults(nni.ts.k8s.KubernetesPlatformConfig.class);
        platforms.put("kubeflow", new nni.ts.kubeflow.internal.KubeflowPlatform(kubernetes, null));
        platforms.put("frameworkcontroller", new nni.ts.frameworkcontroller.internal.FrameworkControllerPlatform(kubernetes, null));
        platforms.put("adl", new nni.ts.adaptdl.internal.AdaptdlPlatform(kubernetes, null));
        platforms.put("dlts", new nni.ts.dlts.internal.DltsPlatform(defaults(nni.ts.dlts.internal.DltsPlatform.Config.class), null));
        platforms.put("aml", new nni.ts.aml.internal.AmlPlatform(defaults(nni.ts.aml.internal.AmlPlatform.Config.class)));
        platforms.put("dlc", new nni.ts.dlc.internal.DlcPlatform(defaults(nni.ts.dlc.internal.DlcPlatform.Config.class)));
        Map<String, TunerProvider> tuners = new LinkedHashMap<>();
        tuners.put("random", new nni.tuners.internal.RandomTunerProvider());
        tuners.put("gridsearch", new nni.tuners.internal.GridSearchTunerProvider());
        tuners.put("tpe", new nni.tuners.internal.TpeTunerProvider());
        tuners.put("anneal", new nni.tuners.internal.AnnealTunerProvider());
        tuners.put("evolution", new nni.tuners.internal.EvolutionTunerProvider());
        return with(platforms, tuners, Map.of("medianstop", new nni.tuners.internal.MedianstopAssessorProvider()));
    }
}
