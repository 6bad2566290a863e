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
 * @param secrets  the key paths, relative to the section and in the canonical spelling
 *                 ({@code machineList[0].password}), of every value in {@code section} that is a
 *                 secret (password, token, key): what {@link ConfigReader#secret} read. The manager
 *                 masks these values in everything it stores, serves or logs and keeps the real ones
 *                 only where resuming the experiment needs them; the platform's session still gets
 *                 the real section.
 */
public record SectionCheck(Map<String, Object> section, List<ConfigProblem> problems, List<String> secrets) {
    public SectionCheck {
        Objects.requireNonNull(section, "section");
        problems = List.copyOf(problems);
        secrets = List.copyOf(secrets);
    }

    /** A section without secrets. */
    public SectionCheck(Map<String, Object> section, List<ConfigProblem> problems) {
        this(section, problems, List.of());
    }

    public boolean valid() {
        return problems.isEmpty();
    }
}
