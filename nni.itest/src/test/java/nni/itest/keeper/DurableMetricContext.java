package nni.itest.keeper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import nni.api.model.TrialJob;
import nni.api.platform.SessionContext;

/**
 * A session context whose metric store is an append-only file made durable before each call
 * returns ({@code fsync}), with group commit: concurrent callers share one {@code force}. Stands in
 * for the experiment store in the ingestion benchmark.
 */
public final class DurableMetricContext implements SessionContext, AutoCloseable {

    private final String experimentId;
    private final Path directory;
    private final Map<String, Object> section;
    private final FileChannel file;
    private final Object forceLock = new Object();
    private long written;
    private volatile long forced;
    public final AtomicLong stored = new AtomicLong();
    public final AtomicLong forces = new AtomicLong();
    public final Map<String, TrialJob> latest = new ConcurrentHashMap<>();

    private final boolean fsync;

    /**
     * @param fsync true: a call returns after {@code force} (survives power loss); false: after the
     *              write to the operating system (survives a crash of this process only)
     */
    public DurableMetricContext(String experimentId, Path directory, Map<String, Object> section, boolean fsync) throws IOException {
        this.fsync = fsync;
        this.experimentId = experimentId;
        this.directory = directory;
        this.section = section;
        this.file = FileChannel.open(directory.resolve("metrics.log"), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
    }

    public Path file() {
        return directory.resolve("metrics.log");
    }

    @Override
    public String experimentId() {
        return experimentId;
    }

    @Override
    public Path experimentDirectory() {
        return directory;
    }

    @Override
    public Map<String, Object> section() {
        return section;
    }

    @Override
    public void trialChanged(TrialJob trial) {
        latest.put(trial.id(), trial);
    }

    @Override
    public void metricReported(String trialId, String line) {
        metricsReported(trialId, List.of(line));
    }

    @Override
    public void metricsReported(String trialId, List<String> lines) {
        StringBuilder text = new StringBuilder(lines.size() * 120);
        for (String line : lines) {
            text.append(trialId).append('\t').append(line).append('\n');
        }
        ByteBuffer bytes = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8));
        long ticket;
        try {
            synchronized (this) {
                while (bytes.hasRemaining()) {
                    file.write(bytes);
                }
                ticket = ++written;
            }
            if (!fsync) {
                stored.addAndGet(lines.size());
                return;
            }
            synchronized (forceLock) {
                if (forced < ticket) {
                    long upTo;
                    synchronized (this) {
                        upTo = written;
                    }
                    file.force(false);
                    forces.incrementAndGet();
                    forced = upTo;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        stored.addAndGet(lines.size());
    }

    @Override
    public void close() throws IOException {
        file.close();
    }
}
