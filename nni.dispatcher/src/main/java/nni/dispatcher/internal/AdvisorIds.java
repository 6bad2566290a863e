package nni.dispatcher.internal;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;

import nni.api.tuner.AlgorithmSection;

/**
 * How NNI's dispatcher is started: {@code python -m nni}, or, for NNI's Hyperband and BOHB, through
 * {@code advisor_ids.py} (a resource beside this class, written to the experiment's {@code log/}),
 * which teaches NNI 3.0's resume check the advisors' string parameter ids and then runs
 * {@code nni} unchanged. Without it their first result raises TypeError in
 * {@code is_created_in_previous_exp} (microsoft/nni#5263): the advisors split their ids as strings
 * and the check compares them with an integer, so no id the manager could forward would do.
 */
final class AdvisorIds {

    static final String SCRIPT = "advisor_ids.py";

    private AdvisorIds() {
    }

    /** @return whether the tuner is one of NNI's advisors with string parameter ids, by name or by its class */
    static boolean needed(AlgorithmSection tuner) {
        String name = tuner.name().orElse("").toLowerCase(Locale.ROOT);
        String className = tuner.className().orElse("");
        return name.equals("hyperband") || name.equals("bohb")
                || className.startsWith("nni.algorithms.hpo.hyperband_advisor.")
                || className.startsWith("nni.algorithms.hpo.bohb_advisor.");
    }

    /**
     * @param log the dispatcher's folder (its working directory)
     * @return the interpreter's arguments that start NNI's dispatcher, before {@code --exp_params}
     */
    static List<String> launch(String python, AlgorithmSection tuner, Path log) throws IOException {
        if (!needed(tuner)) {
            return List.of(python, "-m", "nni");
        }
        Path script = log.resolve(SCRIPT);
        try (InputStream in = AdvisorIds.class.getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IOException(SCRIPT + " is missing from bundle nni.dispatcher");
            }
            Files.createDirectories(log);
            Files.copy(in, script, StandardCopyOption.REPLACE_EXISTING);
        }
        return List.of(python, script.toString());
    }
}
