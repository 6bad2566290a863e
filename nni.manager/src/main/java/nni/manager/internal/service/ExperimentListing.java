package nni.manager.internal.service;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import nni.api.experiment.ExperimentEntry;
import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.Outcome;
import nni.manager.internal.service.StoredSummaries.StoredSummary;

/**
 * {@link ExperimentService#listing}: every experiment under the root, open or stored, newest first,
 * read through the service itself. Stored experiments are summed up from their databases
 * ({@link StoredSummaries}, read again only when one changes). Stateless, so thread-safe.
 */
final class ExperimentListing {

    /** Sums up a stored experiment from its database; empty when it is no longer stored. */
    @FunctionalInterface
    interface StoredSummaryReader {
        Optional<StoredSummary> read(String experimentId) throws IOException;
    }

    private ExperimentListing() {
    }

    /**
     * @param ended each registered experiment's id to the status it ended with, as NNI's registry keeps it
     */
    static List<ExperimentEntry> of(ExperimentService service, Map<String, String> ended, StoredSummaryReader stored)
            throws IOException {
        List<ExperimentEntry> entries = new ArrayList<>();
        for (ExperimentInfo open : service.list()) {
            Outcome<ExperimentReading> read = service.read(open.id());
            if (!read.isDone()) {
                continue; // deleted meanwhile
            }
            try (ExperimentReading experiment = read.value()) {
                // stopped meanwhile: listed as the stored experiment it now is, below
                if (experiment.open()) {
                    entries.add(open(experiment));
                }
            }
        }
        for (String id : service.stored()) {
            if (!service.get(id).isDone()) {
                stored(stored, id, endedStatus(ended, id)).ifPresent(entries::add);
            }
        }
        // stable: open ones before stored ones of the same start, as found
        entries.sort(Comparator.comparing((ExperimentEntry entry) -> entry.startTime().map(time -> time.toEpochMilli()).orElse(0L))
                .reversed());
        return entries;
    }

    /** @return the status NNI's registry keeps for an experiment not open, STOPPED when it has none */
    static String endedStatus(Map<String, String> ended, String id) {
        return ended.getOrDefault(id, "STOPPED");
    }

    private static ExperimentEntry open(ExperimentReading experiment) {
        ExperimentInfo info = experiment.info();
        return ExperimentEntry.builder(info.id()).name(info.name().orElse(null)).status(info.status()).open(true)
                .maximizing(info.maximizing()).startTime(info.startTime()).endTime(info.endTime().orElse(null))
                .execDuration(info.execDuration()).summary(experiment.summary()).build();
    }

    /** @return the entry of a stored experiment not open, or empty when its database cannot be read */
    private static Optional<ExperimentEntry> stored(StoredSummaryReader reader, String id, String status) {
        Optional<StoredSummary> summed;
        try {
            summed = reader.read(id); // empty: deleted meanwhile
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
        return summed.map(stored -> ExperimentEntry.builder(id).name(stored.name()).status(status).open(false)
                .maximizing(stored.maximizing()).startTime(stored.startTime()).endTime(stored.endTime())
                .execDuration(stored.execDuration()).summary(stored.summary()).build());
    }
}
