package nni.api.model;

import java.util.Objects;

/**
 * One parameter set handed to a trial. Immutable; made with {@link #of(String, int)}.
 */
public final class HyperParameters {

    private final String value;
    private final int index;

    private HyperParameters(String value, int index) {
        this.value = Objects.requireNonNull(value, "value");
        if (index < 0) {
            throw new IllegalArgumentException("index must be >= 0, got " + index);
        }
        this.index = index;
    }

    /**
     * @param value the tuner's packed parameter JSON text, verbatim (written unchanged to
     *              {@link #fileName()}: {@code {"parameter_id":..,"parameter_source":..,"parameters":{..},"parameter_index":0}})
     * @param index 0 for the first set ({@code parameter.cfg}), k &ge; 1 for later multi-phase sets
     *              ({@code parameter_k.cfg})
     * @throws IllegalArgumentException if {@code index} is negative
     */
    public static HyperParameters of(String value, int index) {
        return new HyperParameters(value, index);
    }

    /** @return the packed parameter JSON text, verbatim */
    public String value() {
        return value;
    }

    /** @return 0 for the first set, k &ge; 1 for later multi-phase sets */
    public int index() {
        return index;
    }

    /** @return the file name NNI's trial SDK reads this set from */
    public String fileName() {
        return index == 0 ? "parameter.cfg" : "parameter_" + index + ".cfg";
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof HyperParameters that && index == that.index && value.equals(that.value);
    }

    @Override
    public int hashCode() {
        return Objects.hash(value, index);
    }

    @Override
    public String toString() {
        return "HyperParameters[" + index + ": " + value + "]";
    }
}
