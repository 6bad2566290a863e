package nni.manager.internal.experiment;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import nni.config.GivenConfig;
import nni.config.ConfigCodec;
import nni.config.ExperimentConfig;
import nni.store.ExperimentStore;

/**
 * An experiment's folder in NNI's layout ({@code <root>/<id>/{db,log,trials,checkpoint}}): made
 * for a new experiment, opened again for a resume or a view. The definition is stored masked; the
 * real secrets wait in {@code secrets.json} (mode 0600) for a resume.
 */
final class ExperimentFiles {

    /**
     * An experiment's store and its definition, real secrets included (masked in view mode).
     *
     * @param definitionProblems the stored run-time values of the wrong type ({@link ConfigCodec.Stored#problems()})
     */
    record Opened(Path directory, ExperimentStore store, ExperimentConfig config, List<String> definitionProblems) {
    }

    private ExperimentFiles() {
    }

    /**
     * Makes a new experiment's folder and store, its definition stored and the file as the user gave
     * it (null: none) kept masked; interrupted, {@link CreationMarker} tells.
     */
    static Opened create(String id, ExperimentConfig config, GivenConfig given) throws IOException {
        Path directory = config.experimentWorkingDirectory().resolve(id);
        CreationMarker.begin(directory);
        for (String folder : List.of("db", "log", "trials", "checkpoint")) {
            Files.createDirectories(directory.resolve(folder));
        }
        SecretsFile.create(directory, config.secretValues());
        if (given != null) {
            given.masked(config).store(directory);
        }
        ExperimentStore store = ExperimentStore.open(directory);
        store.saveDefinition(ConfigCodec.write(config));
        CreationMarker.done(directory);
        return new Opened(directory, store, config, List.of());
    }

    /** Opens an existing experiment to continue it, its secrets read back. */
    static Opened reopen(String id, Path directory) throws IOException {
        ExperimentStore store = ExperimentStore.open(directory);
        try {
            ConfigCodec.Stored stored = definition(id, directory, store);
            ExperimentConfig masked = stored.config();
            Map<String, String> masks = masked.secretValues();
            ExperimentConfig config = masks.isEmpty() ? masked
                    : masked.withSecretValues(SecretsFile.read(directory, masks.keySet()));
            return new Opened(directory, store, config, stored.problems());
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    /** Opens an existing experiment read-only (NNI's view mode); its secrets stay masked. */
    static Opened view(String id, Path directory) throws IOException {
        ExperimentStore store = ExperimentStore.openReadOnly(directory);
        try {
            ConfigCodec.Stored stored = definition(id, directory, store);
            return new Opened(directory, store, stored.config(), stored.problems());
        } catch (IOException | RuntimeException e) {
            store.close();
            throw e;
        }
    }

    private static ConfigCodec.Stored definition(String id, Path directory, ExperimentStore store) throws IOException {
        String json = store.definition().orElseThrow(() -> new IOException("experiment " + id + " in " + directory + " has no stored definition"));
        try {
            return ConfigCodec.read(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("experiment " + id + ": " + e.getMessage(), e);
        }
    }
}
