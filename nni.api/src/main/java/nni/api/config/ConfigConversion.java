package nni.api.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a {@link ConfigFormat} made of an experiment file: the experiment in NNI's v2 form, where in
 * the file each of its values came from, and the problems the conversion found. Built with
 * {@link #builder}; the origins and problems cannot be changed afterwards.
 *
 * <p>Key paths on both sides are spelled as {@link ConfigProblem#path()} spells them
 * ({@code trainingService.machineList[0].port}); the manager compares their keys as NNI does,
 * ignoring case and underscores.
 *
 * @since nni.api.config 1.2
 */
public final class ConfigConversion {

    private final Map<String, Object> tree;
    private final Map<String, String> origins;
    private final List<ConfigProblem> problems;

    private ConfigConversion(Builder builder) {
        this.tree = builder.tree;
        this.origins = Collections.unmodifiableMap(new LinkedHashMap<>(builder.origins));
        this.problems = List.copyOf(builder.problems);
    }

    /**
     * @param tree the experiment in the v2 form (maps, lists and plain values); handed over: the
     *             format neither keeps nor changes it once built
     */
    public static Builder builder(Map<String, Object> tree) {
        return new Builder(tree);
    }

    /** @return the experiment in the v2 form, which the manager checks as it checks a v2 file */
    public Map<String, Object> tree() {
        return tree;
    }

    /**
     * @return v2 key path to the key path in the file its value came from. A v2 path without an
     *         origin is located at the nearest enclosing v2 path that has one (the file's start when
     *         none has). An origin may also name where a value the file leaves out belongs (a
     *         missing {@code trialCommand} reported at v1's {@code trial}).
     */
    public Map<String, String> origins() {
        return origins;
    }

    /** @return what the conversion refused, with key paths in the file's own spelling; empty when nothing */
    public List<ConfigProblem> problems() {
        return problems;
    }

    /** Collects the origins and problems of a conversion. Not thread-safe. */
    public static final class Builder {
        private final Map<String, Object> tree;
        private final Map<String, String> origins = new LinkedHashMap<>();
        private final List<ConfigProblem> problems = new ArrayList<>();

        private Builder(Map<String, Object> tree) {
            this.tree = Objects.requireNonNull(tree, "tree");
        }

        /** The value at v2 key path {@code path} came from {@code sourcePath} in the file; replaces an earlier origin of {@code path}. */
        public Builder origin(String path, String sourcePath) {
            origins.put(Objects.requireNonNull(path, "path"), Objects.requireNonNull(sourcePath, "sourcePath"));
            return this;
        }

        /** @param problem with a key path in the file's own spelling */
        public Builder problem(ConfigProblem problem) {
            problems.add(Objects.requireNonNull(problem, "problem"));
            return this;
        }

        public ConfigConversion build() {
            return new ConfigConversion(this);
        }
    }
}
