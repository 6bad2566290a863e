package nni.api.config;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The outcome of checking one section of an experiment configuration.
 *
 * @param section  the section in canonical form: keys in NNI's camelCase spelling, defaults filled in,
 *                 paths resolved; meaningful only when {@code problems} is empty
 * @param problems every problem found, with key paths relative to the section; empty when valid
 */
public record SectionCheck(Map<String, Object> section, List<ConfigProblem> problems) {
    public SectionCheck {
        Objects.requireNonNull(section, "section");
        problems = List.copyOf(problems);
    }

    public boolean valid() {
        return problems.isEmpty();
    }
}
