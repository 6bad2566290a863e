package nni.api.tuner;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A {@code tuner:} or {@code assessor:} section of an experiment file, checked and canonical: a
 * built-in algorithm by {@link #name()}, or a custom class ({@link #className()} in
 * {@link #codeDirectory()}), with its {@link #classArgs()}. Immutable; made with {@link #builder()}.
 *
 * @since 1.1
 */
public final class AlgorithmSection {

    private final String name;
    private final String className;
    private final Path codeDirectory;
    private final Map<String, Object> classArgs;

    private AlgorithmSection(Builder builder) {
        this.name = builder.name;
        this.className = builder.className;
        this.codeDirectory = builder.codeDirectory;
        this.classArgs = Collections.unmodifiableMap(new LinkedHashMap<>(builder.classArgs));
        if ((name == null) == (className == null)) {
            throw new IllegalArgumentException("an algorithm has either a name or a className, got name " + name
                    + " and className " + className);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return the built-in algorithm's name as written ({@code SMAC}, {@code Hyperband}), or empty for a custom class */
    public Optional<String> name() {
        return Optional.ofNullable(name);
    }

    /** @return a custom algorithm's class ({@code my_tuner.MyTuner}), or empty for a built-in one */
    public Optional<String> className() {
        return Optional.ofNullable(className);
    }

    /** @return the directory a custom class is loaded from (absolute), or empty for a built-in algorithm */
    public Optional<Path> codeDirectory() {
        return Optional.ofNullable(codeDirectory);
    }

    /** @return the arguments given to the algorithm's constructor, as written (never null) */
    public Map<String, Object> classArgs() {
        return classArgs;
    }

    /** @return the name, or the class name of a custom algorithm: what messages call it */
    public String label() {
        return name != null ? name : className;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof AlgorithmSection that && Objects.equals(name, that.name)
                && Objects.equals(className, that.className) && Objects.equals(codeDirectory, that.codeDirectory)
                && classArgs.equals(that.classArgs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, className, codeDirectory, classArgs);
    }

    @Override
    public String toString() {
        return "AlgorithmSection[" + label() + (codeDirectory == null ? "" : " in " + codeDirectory) + ", " + classArgs + "]";
    }

    /** Builds an {@link AlgorithmSection}. */
    public static final class Builder {
        private String name;
        private String className;
        private Path codeDirectory;
        private Map<String, Object> classArgs = Map.of();

        private Builder() {
        }

        public Builder name(String name) {
            this.name = name;
            return this;
        }

        public Builder className(String className) {
            this.className = className;
            return this;
        }

        public Builder codeDirectory(Path codeDirectory) {
            this.codeDirectory = codeDirectory;
            return this;
        }

        public Builder classArgs(Map<String, Object> classArgs) {
            this.classArgs = classArgs == null ? Map.of() : classArgs;
            return this;
        }

        /** @throws IllegalArgumentException unless exactly one of name and className is set */
        public AlgorithmSection build() {
            return new AlgorithmSection(this);
        }
    }
}
