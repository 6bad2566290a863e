package nni.ts.local.internal;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import nni.api.platform.PlatformException;
import nni.api.platform.SessionView;

/**
 * This machine's GPUs as last read, for the session's {@link SessionView}: every reading the GPU
 * scheduler takes is kept, and a view asked for when the last one is older than {@link #FRESH}
 * starts one more on the session's timer thread (never on the caller's), so that a machines page
 * open in a browser sees figures a few seconds old while nobody looking costs nothing.
 */
final class GpuReadings {

    static final Duration FRESH = Duration.ofSeconds(3);

    /** A reading: the GPUs, or why there are none. */
    private record Reading(Instant at, List<GpuScheduler.Gpu> gpus, String problem) {
    }

    private final String command;
    private final Executor timers;
    private final AtomicBoolean reading = new AtomicBoolean();
    private volatile Reading last;

    GpuReadings(String command, Executor timers) {
        this.command = command;
        this.timers = timers;
    }

    /** Keeps a reading taken elsewhere (the scheduler's). */
    void record(List<GpuScheduler.Gpu> gpus) {
        last = new Reading(Instant.now(), List.copyOf(gpus), null);
    }

    /**
     * @param host       the machine's name as the view shows it
     * @param placements which GPUs each trial holds
     * @return the machine as last read; starts a fresh reading when that one is old
     */
    SessionView.Machine machine(String host, Map<String, List<Integer>> placements) {
        Reading now = last;
        if (now == null || now.at().plus(FRESH).isBefore(Instant.now())) {
            refreshLater();
        }
        SessionView.MachineBuilder machine = SessionView.Machine.builder(host);
        if (now == null) {
            return machine.build();
        }
        machine.readAt(now.at()).problem(now.problem());
        if (now.gpus() != null) {
            for (GpuScheduler.Gpu gpu : now.gpus()) {
                SessionView.GpuBuilder shown = SessionView.Gpu.builder(gpu.index());
                if (gpu.utilization() != null) {
                    shown.utilization(gpu.utilization());
                }
                if (gpu.memoryUsedMiB() != null && gpu.memoryTotalMiB() != null) {
                    shown.memoryMiB(gpu.memoryUsedMiB(), gpu.memoryTotalMiB());
                }
                placements.forEach((trial, indices) -> {
                    if (indices.contains(gpu.index())) {
                        shown.trial(trial);
                    }
                });
                machine.gpu(shown.build());
            }
        }
        return machine.build();
    }

    private void refreshLater() {
        if (!reading.compareAndSet(false, true)) {
            return;
        }
        try {
            timers.execute(() -> {
                try {
                    record(GpuScheduler.read(command));
                } catch (PlatformException e) {
                    last = new Reading(Instant.now(), null, e.getMessage());
                } finally {
                    reading.set(false);
                }
            });
        } catch (RejectedExecutionException closed) {
            reading.set(false);
        }
    }
}
