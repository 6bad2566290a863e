package nni.api.experiment;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What {@link ExperimentService#check} found in an experiment file without creating anything, as
 * {@code nni:validate} and {@code java -jar nni-osgi.jar validate} print it. A value, read-only. Made
 * with {@link #builder(Path)}; fields may be added in minor versions.
 *
 * @since 1.5
 */
public final class ConfigCheck {

    private final Path file;
    private final List<String> errors;
    private final List<String> unchecked;
    private final List<String> notes;

    private ConfigCheck(Builder b) {
        this.file = Objects.requireNonNull(b.file, "file");
        this.errors = List.copyOf(b.errors);
        this.unchecked = List.copyOf(b.unchecked);
        this.notes = List.copyOf(b.notes);
    }

    /** @param file the file checked, as it was named */
    public static Builder builder(Path file) {
        return new Builder(file);
    }

    /** @return the file checked, as it was named */
    public Path file() {
        return file;
    }

    /** @return whether no problem was found: the file would create an experiment as far as it could be checked */
    public boolean ok() {
        return errors.isEmpty();
    }

    /**
     * @return every problem, one a line, located for a person as {@code file:line:col: key.path: message}
     *         ({@code file:line:col: message} for the file as a whole); empty when {@link #ok()}
     */
    public List<String> errors() {
        return errors;
    }

    /**
     * @return the training-service sections not checked because their platform is not installed, as
     *         {@code trainingService (platform adl)}
     */
    public List<String> unchecked() {
        return unchecked;
    }

    /**
     * @return how the algorithms run when not in Java, as {@code tuner SMAC: runs through NNI's
     *         dispatcher (needs the nni package)}
     */
    public List<String> notes() {
        return notes;
    }

    /**
     * @return the check as the commands print it: {@code OK: file} or the errors, then a line per
     *         unchecked section ({@code file: section: not checked, the platform is not installed}) and
     *         per note ({@code file: note})
     */
    public List<String> lines() {
        List<String> lines = new ArrayList<>();
        if (ok()) {
            lines.add("OK: " + file);
        } else {
            lines.addAll(errors);
        }
        unchecked.forEach(section -> lines.add(file + ": " + section + ": not checked, the platform is not installed"));
        notes.forEach(note -> lines.add(file + ": " + note));
        return lines;
    }

    @Override
    public String toString() {
        return String.join("\n", lines());
    }

    public static final class Builder {
        private final Path file;
        private final List<String> errors = new ArrayList<>();
        private final List<String> unchecked = new ArrayList<>();
        private final List<String> notes = new ArrayList<>();

        private Builder(Path file) {
            this.file = file;
        }

        /** @param error one problem, located as {@link ConfigCheck#errors()} says */
        public Builder error(String error) {
            errors.add(Objects.requireNonNull(error, "error"));
            return this;
        }

        /** @param section a training-service section not checked, as {@link ConfigCheck#unchecked()} says */
        public Builder unchecked(String section) {
            unchecked.add(Objects.requireNonNull(section, "section"));
            return this;
        }

        /** @param note how an algorithm runs, as {@link ConfigCheck#notes()} says */
        public Builder note(String note) {
            notes.add(Objects.requireNonNull(note, "note"));
            return this;
        }

        public ConfigCheck build() {
            return new ConfigCheck(this);
        }
    }
}
