package nni.store;

import java.util.Map;

/**
 * What a platform told about where one trial runs, kept in the table {@code TrialPlatform} of
 * the experiment's database (NNI's tables have no place for it).
 *
 * @param handle     the platform's opaque handle, given back on re-attach; empty when none
 * @param host       where the trial runs; empty when unknown
 * @param attributes display facts ({@code keeper=java 17})
 */
public record TrialPlatformRecord(String trialId, String handle, String host, Map<String, String> attributes) {
    public TrialPlatformRecord {
        handle = handle == null ? "" : handle;
        host = host == null ? "" : host;
        attributes = attributes == null ? Map.of() : attributes;
    }
}
