package nni.config;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.config.ConfigFormat;

/**
 * The experiment file formats other than v2 that installed bundles read ({@link ConfigFormat}
 * services), best ranked first, as the framework ranks services. Thread-safe.
 */
final class ConfigFormats {

    /** The bundle that reads NNI's v1 files, named when a v1 file finds no format. */
    static final String V1_BUNDLE = "nni.config.v1";

    private record Bound(ConfigFormat format, int ranking, long serviceId) {
    }

    private static final Comparator<Bound> BEST_FIRST = Comparator.comparingInt(Bound::ranking).reversed()
            .thenComparingLong(Bound::serviceId);

    private volatile List<Bound> formats = List.of();

    /** @param properties the service's properties ({@code service.ranking}, {@code service.id}); empty outside a framework */
    synchronized void add(ConfigFormat format, Map<String, ?> properties) {
        List<Bound> next = new ArrayList<>(formats);
        next.add(new Bound(format, properties.get("service.ranking") instanceof Integer ranking ? ranking : 0,
                properties.get("service.id") instanceof Long id ? id : Long.MAX_VALUE));
        next.sort(BEST_FIRST);
        formats = List.copyOf(next);
    }

    synchronized void remove(ConfigFormat format) {
        formats = formats.stream().filter(bound -> bound.format() != format).toList();
    }

    /** @return the best-ranked format that recognises the file's top-level mapping; empty for a v2 file */
    Optional<ConfigFormat> recognising(Map<String, Object> root) {
        return formats.stream().map(Bound::format).filter(format -> format.recognises(root)).findFirst();
    }

    /**
     * @return whether NNI would read the file as v1 (a truthy top-level {@code trainingServicePlatform}),
     *         so that a v1 file read without {@value #V1_BUNDLE} is told what is missing rather than
     *         refused key by key as a v2 file
     */
    static boolean isV1(Map<String, Object> root) {
        Object platform = root.get("trainingServicePlatform");
        return platform != null && !Boolean.FALSE.equals(platform) && !"".equals(platform);
    }
}
