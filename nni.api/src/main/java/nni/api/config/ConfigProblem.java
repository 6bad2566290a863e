package nni.api.config;

import java.util.Objects;

/**
 * One thing wrong with a configuration, found by whoever checks that part of it.
 *
 * @param path    where, as a key path relative to the part that was checked, in the config file's own
 *                spelling of structure: {@code machineList[1].port}; empty for the part as a whole.
 *                The manager prefixes it with the section's path and adds file, line and column.
 * @param message what was expected and what was found, for a person: {@code expected a port number
 *                1-65535, got "22a"}. It must never contain a secret (password, token, key).
 */
public record ConfigProblem(String path, String message) {
    public ConfigProblem {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
    }

    /** @return this problem with {@code prefix} put before its path */
    public ConfigProblem under(String prefix) {
        if (prefix.isEmpty()) {
            return this;
        }
        if (path.isEmpty()) {
            return new ConfigProblem(prefix, message);
        }
        return new ConfigProblem(path.startsWith("[") ? prefix + path : prefix + "." + path, message);
    }

    @Override
    public String toString() {
        return path.isEmpty() ? message : path + ": " + message;
    }
}
