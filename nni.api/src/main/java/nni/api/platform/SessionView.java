package nni.api.platform;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What a session shows of itself to people, for the web UI's machines view: a line saying its state
 * and the machines it uses with their GPUs as last read ({@link TrainingSession#view()}). Immutable,
 * built with {@link #builder()}. Fields may be added; an absent field means "not known".
 */
public final class SessionView {

    private final String state;
    private final List<Machine> machines;

    private SessionView(Builder builder) {
        this.state = builder.state;
        this.machines = List.copyOf(builder.machines);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** @return the session's state in a few words ({@code "2 trials running"}), or empty */
    public Optional<String> state() {
        return Optional.ofNullable(state);
    }

    /** @return the machines the session uses, in the session's order */
    public List<Machine> machines() {
        return machines;
    }

    @Override
    public String toString() {
        return "SessionView[state=" + state + ", machines=" + machines + "]";
    }

    /** Builds a {@link SessionView}; not thread-safe. */
    public static final class Builder {
        private String state;
        private final List<Machine> machines = new ArrayList<>();

        private Builder() {
        }

        public Builder state(String state) {
            this.state = state;
            return this;
        }

        public Builder machine(Machine machine) {
            machines.add(Objects.requireNonNull(machine, "machine"));
            return this;
        }

        public SessionView build() {
            return new SessionView(this);
        }
    }

    /** One machine: its GPUs as last read, when, and why they could not be read if so. */
    public static final class Machine {
        private final String name;
        private final Instant readAt;
        private final String problem;
        private final List<Gpu> gpus;

        private Machine(MachineBuilder builder) {
            this.name = builder.name;
            this.readAt = builder.readAt;
            this.problem = builder.problem;
            this.gpus = List.copyOf(builder.gpus);
        }

        /** @param name how users know the machine ({@code localhost}, {@code gpu1.lab:22}) */
        public static MachineBuilder builder(String name) {
            return new MachineBuilder(Objects.requireNonNull(name, "name"));
        }

        public String name() {
            return name;
        }

        /** @return when the GPUs shown were read; empty when they never were */
        public Optional<Instant> readAt() {
            return Optional.ofNullable(readAt);
        }

        /** @return why the last reading failed ({@code nvidia-smi} missing, the machine unreachable), or empty */
        public Optional<String> problem() {
            return Optional.ofNullable(problem);
        }

        /** @return the GPUs of the last successful reading, by index; empty when none was read or there are none */
        public List<Gpu> gpus() {
            return gpus;
        }

        @Override
        public String toString() {
            return "Machine[" + name + ", readAt=" + readAt + ", problem=" + problem + ", gpus=" + gpus + "]";
        }
    }

    /** Builds a {@link Machine}; not thread-safe. */
    public static final class MachineBuilder {
        private final String name;
        private Instant readAt;
        private String problem;
        private final List<Gpu> gpus = new ArrayList<>();

        private MachineBuilder(String name) {
            this.name = name;
        }

        public MachineBuilder readAt(Instant at) {
            this.readAt = at;
            return this;
        }

        public MachineBuilder problem(String problem) {
            this.problem = problem;
            return this;
        }

        public MachineBuilder gpu(Gpu gpu) {
            gpus.add(Objects.requireNonNull(gpu, "gpu"));
            return this;
        }

        public Machine build() {
            return new Machine(this);
        }
    }

    /** One GPU as {@code nvidia-smi} reported it, and the trials of this session placed on it. */
    public static final class Gpu {
        private final int index;
        private final Integer utilization;
        private final Long memoryUsedMiB;
        private final Long memoryTotalMiB;
        private final List<String> trials;

        private Gpu(GpuBuilder builder) {
            this.index = builder.index;
            this.utilization = builder.utilization;
            this.memoryUsedMiB = builder.memoryUsedMiB;
            this.memoryTotalMiB = builder.memoryTotalMiB;
            this.trials = List.copyOf(builder.trials);
        }

        /** @param index the GPU's index as {@code CUDA_VISIBLE_DEVICES} names it */
        public static GpuBuilder builder(int index) {
            return new GpuBuilder(index);
        }

        public int index() {
            return index;
        }

        /** @return the GPU's utilisation in percent, or empty when not reported */
        public OptionalInt utilization() {
            return utilization == null ? OptionalInt.empty() : OptionalInt.of(utilization);
        }

        /** @return memory in use, MiB, or empty when not reported */
        public OptionalLong memoryUsedMiB() {
            return memoryUsedMiB == null ? OptionalLong.empty() : OptionalLong.of(memoryUsedMiB);
        }

        /** @return memory in all, MiB, or empty when not reported */
        public OptionalLong memoryTotalMiB() {
            return memoryTotalMiB == null ? OptionalLong.empty() : OptionalLong.of(memoryTotalMiB);
        }

        /** @return the ids of this session's trials placed on the GPU now */
        public List<String> trials() {
            return trials;
        }

        @Override
        public String toString() {
            return "Gpu[" + index + ", utilization=" + utilization + ", memory=" + memoryUsedMiB + "/" + memoryTotalMiB
                    + " MiB, trials=" + trials + "]";
        }
    }

    /** Builds a {@link Gpu}; not thread-safe. */
    public static final class GpuBuilder {
        private final int index;
        private Integer utilization;
        private Long memoryUsedMiB;
        private Long memoryTotalMiB;
        private final List<String> trials = new ArrayList<>();

        private GpuBuilder(int index) {
            this.index = index;
        }

        public GpuBuilder utilization(int percent) {
            this.utilization = percent;
            return this;
        }

        public GpuBuilder memoryMiB(long used, long total) {
            this.memoryUsedMiB = used;
            this.memoryTotalMiB = total;
            return this;
        }

        public GpuBuilder trial(String trialId) {
            trials.add(Objects.requireNonNull(trialId, "trialId"));
            return this;
        }

        public Gpu build() {
            return new Gpu(this);
        }
    }
}
