package nni.api.searchspace;

import java.util.Locale;
import java.util.Optional;

/** The ten parameter types of NNI's search space, by their {@code _type} names. */
public enum ParameterType {
    CHOICE, RANDINT, UNIFORM, QUNIFORM, LOGUNIFORM, QLOGUNIFORM, NORMAL, QNORMAL, LOGNORMAL, QLOGNORMAL;

    /** @return the {@code _type} name, e.g. {@code qloguniform} */
    public String nniName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** @return the type named {@code _type}, matched exactly as NNI does */
    public static Optional<ParameterType> of(String nniName) {
        for (ParameterType type : values()) {
            if (type.nniName().equals(nniName)) {
                return Optional.of(type);
            }
        }
        return Optional.empty();
    }

    /** @return whether values are picked from a finite list by index (choice, randint) */
    public boolean categorical() {
        return this == CHOICE || this == RANDINT;
    }

    /** @return whether the type has a third argument q and rounds to multiples of it */
    public boolean quantized() {
        return this == QUNIFORM || this == QLOGUNIFORM || this == QNORMAL || this == QLOGNORMAL;
    }

    /** @return whether the type works in log space */
    public boolean logarithmic() {
        return this == LOGUNIFORM || this == QLOGUNIFORM || this == LOGNORMAL || this == QLOGNORMAL;
    }

    /** @return whether the arguments are mu and sigma of a normal distribution */
    public boolean normal() {
        return this == NORMAL || this == QNORMAL || this == LOGNORMAL || this == QLOGNORMAL;
    }

    /** @return how many {@code _value} arguments the type takes (choice: any) */
    public int arity() {
        return this == CHOICE ? -1 : quantized() ? 3 : 2;
    }
}
