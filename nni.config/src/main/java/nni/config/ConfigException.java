package nni.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * An experiment file that cannot be used. Carries every problem found, not just the first; the
 * message lists them one per line as {@code file:line:col: path: message}.
 */
public class ConfigException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient List<ConfigError> errors;

    public ConfigException(List<ConfigError> errors) {
        super(errors.stream().map(ConfigError::toString).collect(Collectors.joining("\n")));
        this.errors = List.copyOf(errors);
    }

    public List<ConfigError> errors() {
        return errors;
    }
}
