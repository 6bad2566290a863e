package nni.tuners.internal;

import java.util.HashSet;
import java.util.Optional;
import java.util.Set;

import nni.tuners.internal.Grid.Candidate;

/**
 * NNI's dedup for Random and TPE: in a finite space a repeated parameter set is replaced by the next
 * unseen grid point, and when the grid is exhausted the tuner has nothing more to give. A space with a
 * continuous, non-degenerate top-level dimension is never deduplicated.
 */
final class Deduplicator {

    private final Dims dims;
    private final boolean enabled;
    private final Set<String> history = new HashSet<>();
    private Grid grid;

    Deduplicator(Dims dims) {
        this.dims = dims;
        this.enabled = !dims.infinite();
    }

    /** Counts a parameter set given out elsewhere (an imported result) as seen. */
    void remember(java.util.Map<String, Object> parameters) {
        history.add(Dims.key(parameters));
    }

    /** @return {@code point} if new, else an unseen grid point, else empty (space exhausted) */
    Optional<Candidate> check(double[] point) {
        Candidate candidate = new Candidate(point, dims.parameters(point));
        if (!enabled || history.add(Dims.key(candidate.parameters()))) {
            return Optional.of(candidate);
        }
        if (grid == null) {
            grid = new Grid(dims);
        }
        return grid.next(history);
    }
}
