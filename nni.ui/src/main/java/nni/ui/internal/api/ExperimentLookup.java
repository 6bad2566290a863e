package nni.ui.internal.api;

import java.io.IOException;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.http.HttpError;

/**
 * Finds the experiment a page asks for: an open one, or else a read-only copy of a stored one
 * ({@link ExperimentService#read}). A person browsing old experiments opens nothing (they are not
 * listed as open, {@code nni:} commands and NNI's REST default do not see them); the copies are kept
 * while they are looked at and released after {@value #IDLE_SECONDS} s unused, at most
 * {@value #MAX_COPIES} at a time.
 */
final class ExperimentLookup implements AutoCloseable {

    private static final int MAX_COPIES = 3;
    private static final long IDLE_SECONDS = 120;

    private record Copy(ExperimentReading experiment, long lastUse) {
    }

    private final ExperimentService service;
    /** Stored experiments read for a page, least recently used first. */
    private final Map<String, Copy> copies = new LinkedHashMap<>(8, 0.75f, true);

    ExperimentLookup(ExperimentService service) {
        this.service = service;
    }

    /**
     * @throws HttpError 404 when there is no such experiment
     */
    ExperimentReading require(String id) {
        if (service.get(id).isDone()) {
            ExperimentReading open = read(id);
            if (open.open()) {
                release(id);
                return open;
            }
            open.close(); // stopped meanwhile: read as a stored one below
        }
        synchronized (this) {
            long now = System.nanoTime();
            expire(now);
            Copy copy = copies.get(id);
            if (copy == null) {
                ExperimentReading read = read(id);
                if (read.open()) { // opened meanwhile
                    return read;
                }
                copy = new Copy(read, now);
            }
            copies.put(id, new Copy(copy.experiment(), now));
            while (copies.size() > MAX_COPIES) {
                Iterator<Copy> eldest = copies.values().iterator();
                eldest.next().experiment().close();
                eldest.remove();
            }
            return copy.experiment();
        }
    }

    private ExperimentReading read(String id) {
        try {
            Outcome<ExperimentReading> read = service.read(id);
            if (read.isDone()) {
                return read.value();
            }
        } catch (IOException e) {
            // unreadable: as good as missing to a page
        }
        throw HttpError.notFound("no experiment " + id);
    }

    /** Lets go of a stored experiment read for pages, before it is resumed or deleted. */
    synchronized void forget(String id) {
        release(id);
    }

    private synchronized void release(String id) {
        Copy copy = copies.remove(id);
        if (copy != null) {
            copy.experiment().close();
        }
    }

    private void expire(long now) {
        Iterator<Copy> all = copies.values().iterator();
        while (all.hasNext()) {
            Copy copy = all.next();
            if (now - copy.lastUse() > Duration.ofSeconds(IDLE_SECONDS).toNanos()) {
                copy.experiment().close();
                all.remove();
            }
        }
    }

    @Override
    public synchronized void close() {
        copies.values().forEach(copy -> copy.experiment().close());
        copies.clear();
    }
}
