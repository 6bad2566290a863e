package nni.manager.internal.ui;

import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import nni.manager.internal.experiment.Experiment;
import nni.manager.internal.experiment.ExperimentManager;
import nni.http.HttpError;

/**
 * Finds the experiment a page asks for: an open one, or else a read-only copy of a stored one. A
 * person browsing old experiments opens nothing (they are not listed as open, {@code nni:} commands
 * and NNI's REST default do not see them); the copies are kept while they are looked at and
 * released after {@value #IDLE_SECONDS} s unused, at most {@value #MAX_COPIES} at a time.
 */
final class ExperimentLookup implements AutoCloseable {

    private static final int MAX_COPIES = 3;
    private static final long IDLE_SECONDS = 120;

    private record Copy(Experiment experiment, long lastUse) {
    }

    private final ExperimentManager manager;
    /** Stored experiments read for a page, least recently used first. */
    private final Map<String, Copy> copies = new LinkedHashMap<>(8, 0.75f, true);

    ExperimentLookup(ExperimentManager manager) {
        this.manager = manager;
    }

    /**
     * @throws HttpError 404 when there is no such experiment
     */
    Experiment require(String id) {
        Experiment open = manager.get(id).orElse(null);
        if (open != null) {
            release(id);
            return open;
        }
        synchronized (this) {
            long now = System.nanoTime();
            expire(now);
            Copy copy = copies.get(id);
            if (copy == null) {
                try {
                    copy = new Copy(manager.readStored(id), now);
                } catch (IOException | IllegalArgumentException e) {
                    throw HttpError.notFound("no experiment " + id);
                }
            }
            copies.put(id, new Copy(copy.experiment(), now));
            while (copies.size() > MAX_COPIES) {
                Iterator<Copy> eldest = copies.values().iterator();
                stop(eldest.next().experiment());
                eldest.remove();
            }
            return copy.experiment();
        }
    }

    /** Lets go of a stored experiment read for pages, before it is resumed or deleted. */
    synchronized void forget(String id) {
        release(id);
    }

    private synchronized void release(String id) {
        Copy copy = copies.remove(id);
        if (copy != null) {
            stop(copy.experiment());
        }
    }

    private void expire(long now) {
        Iterator<Copy> all = copies.values().iterator();
        while (all.hasNext()) {
            Copy copy = all.next();
            if (now - copy.lastUse() > Duration.ofSeconds(IDLE_SECONDS).toNanos()) {
                stop(copy.experiment());
                all.remove();
            }
        }
    }

    private static void stop(Experiment copy) {
        copy.stop(Duration.ZERO);
    }

    @Override
    public synchronized void close() {
        copies.values().forEach(copy -> stop(copy.experiment()));
        copies.clear();
    }
}
