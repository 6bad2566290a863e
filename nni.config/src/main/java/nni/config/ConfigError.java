package nni.config;

import java.nio.file.Path;

/**
 * One problem of an experiment file, located for a person.
 *
 * @param file    the file the problem is in
 * @param line    1-based line
 * @param column  1-based column
 * @param path    the key path ({@code trainingService.machineList[1].port}); empty for the file as a whole
 * @param message what was expected and what was found; never contains a secret
 */
public record ConfigError(Path file, int line, int column, String path, String message) {

    @Override
    public String toString() {
        return file + ":" + line + ":" + column + ": " + (path.isEmpty() ? "" : path + ": ") + message;
    }
}
