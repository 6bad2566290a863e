package nni.api.platform;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * How many more trials a session could start now, as far as it knows: what a scheduler placing
 * trials across the members of an experiment asks each member ({@link TrainingSession#capacity()}).
 * Immutable; {@link #unknown()} by default, or built with {@link #builder()}. Fields may be added
 * (GPU counts, for example); an absent field means "unknown", never "none".
 */
public final class Capacity {

    private static final Capacity UNKNOWN = new Capacity(builder());

    private final Integer freeTrialSlots;

    private Capacity(Builder builder) {
        this.freeTrialSlots = builder.freeTrialSlots;
    }

    /** @return nothing known: the manager submits as the experiment's concurrency allows */
    public static Capacity unknown() {
        return UNKNOWN;
    }

    /** @return a capacity of {@code count} free trial slots */
    public static Capacity freeTrialSlots(int count) {
        return builder().freeTrialSlots(count).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return how many more trials could start now, or empty when the session cannot tell */
    public OptionalInt freeTrialSlots() {
        return freeTrialSlots == null ? OptionalInt.empty() : OptionalInt.of(freeTrialSlots);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Capacity that && Objects.equals(freeTrialSlots, that.freeTrialSlots);
    }

    @Override
    public int hashCode() {
        return Objects.hashCode(freeTrialSlots);
    }

    @Override
    public String toString() {
        return "Capacity[freeTrialSlots=" + (freeTrialSlots == null ? "unknown" : freeTrialSlots) + "]";
    }

    /** Builds a {@link Capacity}; not thread-safe. */
    public static final class Builder {
        private Integer freeTrialSlots;

        private Builder() {
        }

        /** @throws IllegalArgumentException if {@code count} is negative */
        public Builder freeTrialSlots(int count) {
            if (count < 0) {
                throw new IllegalArgumentException("freeTrialSlots must be >= 0, got " + count);
            }
            this.freeTrialSlots = count;
            return this;
        }

        public Capacity build() {
            return new Capacity(this);
        }
    }
}
