package nni.api.model;

import java.util.List;
import java.util.Objects;

/**
 * Where a trial may run, as NNI's {@code placementConstraint} expresses it. Immutable; made with
 * {@link #none()}, {@link #gpus(int)} or {@link #builder()}.
 */
public final class Placement {

    private static final Placement NONE = new Placement(builder());

    private final Integer gpuNumber;
    private final List<String> devices;

    private Placement(Builder builder) {
        this.gpuNumber = builder.gpuNumber;
        this.devices = List.copyOf(builder.devices);
    }

    /** @return no constraint: the experiment says nothing about GPUs */
    public static Placement none() {
        return NONE;
    }

    /** @return a trial that needs {@code count} GPUs (0: none, and NNI then hides every GPU) */
    public static Placement gpus(int count) {
        return builder().gpuNumber(count).build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * @return how many GPUs the trial needs; 0 means none (NNI then hides all GPUs), {@code null}
     *         means the experiment did not say (GPUs are left as they are)
     */
    public Integer gpuNumber() {
        return gpuNumber;
    }

    /** @return for {@code Device} placement, the {@code host:index} pairs the trial must use; else empty */
    public List<String> devices() {
        return devices;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Placement that && Objects.equals(gpuNumber, that.gpuNumber) && devices.equals(that.devices);
    }

    @Override
    public int hashCode() {
        return Objects.hash(gpuNumber, devices);
    }

    @Override
    public String toString() {
        return "Placement[gpuNumber=" + gpuNumber + ", devices=" + devices + "]";
    }

    /** Builds a {@link Placement}; not thread-safe. */
    public static final class Builder {
        private Integer gpuNumber;
        private List<String> devices = List.of();

        private Builder() {
        }

        /** @throws IllegalArgumentException if {@code gpuNumber} is negative */
        public Builder gpuNumber(Integer gpuNumber) {
            if (gpuNumber != null && gpuNumber < 0) {
                throw new IllegalArgumentException("gpuNumber must be >= 0, got " + gpuNumber);
            }
            this.gpuNumber = gpuNumber;
            return this;
        }

        public Builder devices(List<String> devices) {
            this.devices = List.copyOf(devices);
            return this;
        }

        public Placement build() {
            return new Placement(this);
        }
    }
}
