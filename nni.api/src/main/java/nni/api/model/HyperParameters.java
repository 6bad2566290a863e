package nni.api.model;

import java.util.Objects;

/**
 * One parameter set handed to a trial.
 *
 * @param value the tuner's packed parameter JSON text, verbatim (it is written unchanged to
 *              {@code parameter.cfg}: {@code {"parameter_id":..,"parameter_source":..,"parameters":{..},"parameter_index":0}})
 * @param index 0 for the first set ({@code parameter.cfg}), k &ge; 1 for later multi-phase sets
 *              ({@code parameter_k.cfg})
 */
public record HyperParameters(String value, int index) {
    public HyperParameters {
        Objects.requireNonNull(value, "value");
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, got " + index);
        }
    }

    /** @return the file name NNI's trial SDK reads this set from */
    public String fileName() {
        return index == 0 ? "parameter.cfg" : "parameter_" + index + ".cfg";
    }
}
