package nni.api.model;

import java.util.List;

/**
 * Where a trial may run, as NNI's {@code placementConstraint} expresses it.
 *
 * @param gpuNumber how many GPUs the trial needs; 0 means none (NNI then hides all GPUs),
 *                  {@code null} means the experiment did not say (GPUs are left as they are)
 * @param devices   for {@code Device} placement: {@code host:index} pairs the trial must use;
 *                  empty otherwise
 */
public record Placement(Integer gpuNumber, List<String> devices) {
    public static final Placement NONE = new Placement(null, List.of());

    public Placement {
        if (gpuNumber != null && gpuNumber < 0) {
            throw new IllegalArgumentException("gpuNumber must be >= 0, got " + gpuNumber);
        }
        devices = List.copyOf(devices);
    }

    public static Placement gpus(int count) {
        return new Placement(count, List.of());
    }
}
