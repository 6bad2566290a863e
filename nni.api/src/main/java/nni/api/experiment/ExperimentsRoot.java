package nni.api.experiment;

import java.nio.file.Path;
import java.util.Map;

import nni.api.config.ConfigReader;

/**
 * Where the runtime's experiments live ({@code <root>/<id>/db,log,trials}): NNI's
 * {@code ~/nni-experiments} unless the framework property {@value #PROPERTY} names another
 * directory. One definition for every bundle that finds an experiment's folder by its id (the
 * engine, the keeper protocol), so that they agree without importing each other.
 *
 * @since 1.2
 */
public final class ExperimentsRoot {

    /** Framework property: the directory that holds experiments. */
    public static final String PROPERTY = "nni.experiments.dir";

    private ExperimentsRoot() {
    }

    /**
     * @param configured the value of {@value #PROPERTY} ({@code BundleContext.getProperty}), or null
     * @return that directory, absolute, or NNI's default when it is null or blank
     */
    public static Path of(String configured) {
        return configured == null || configured.isBlank() ? nniDefault() : Path.of(configured).toAbsolutePath();
    }

    /** @return NNI's default experiments directory, {@code ~/nni-experiments}, as a config file's path resolves it */
    public static Path nniDefault() {
        return ConfigReader.of(Map.of(), Path.of("").toAbsolutePath()).resolve("~/nni-experiments");
    }
}
