package nni.config;

import java.nio.file.Path;
import java.util.List;

/**
 * What {@code nni:validate} found.
 *
 * @param file      the file checked
 * @param errors    every problem; empty when the file is valid as far as it could be checked
 * @param unchecked the training-service sections not checked because their platform is not
 *                  installed, as {@code trainingService (platform adl)}
 * @param notes     how the algorithms run when not in Java, as {@code tuner SMAC: runs through NNI's
 *                  dispatcher (needs the nni package)}
 */
public record ValidationReport(Path file, List<ConfigError> errors, List<String> unchecked, List<String> notes) {

    public ValidationReport {
        errors = List.copyOf(errors);
        unchecked = List.copyOf(unchecked);
        notes = List.copyOf(notes);
    }

    public ValidationReport(Path file, List<ConfigError> errors, List<String> unchecked) {
        this(file, errors, unchecked, List.of());
    }

    /** @return whether no problem was found */
    public boolean ok() {
        return errors.isEmpty();
    }

    /** @return the report as lines: {@code OK: file} or the errors, then one line per unchecked section and per note */
    public List<String> lines() {
        List<String> lines = new java.util.ArrayList<>();
        if (ok()) {
            lines.add("OK: " + file);
        } else {
            errors.forEach(e -> lines.add(e.toString()));
        }
        unchecked.forEach(u -> lines.add(file + ": " + u + ": not checked, the platform is not installed"));
        notes.forEach(note -> lines.add(file + ": " + note));
        return lines;
    }

    @Override
    public String toString() {
        return String.join("\n", lines());
    }
}
