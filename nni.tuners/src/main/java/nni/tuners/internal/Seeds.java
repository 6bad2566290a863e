package nni.tuners.internal;

import java.util.SplittableRandom;

/** Random generators for the tuners: seeded when {@code classArgs} give {@code seed}, so runs repeat. */
final class Seeds {

    private Seeds() {
    }

    /** The {@code seed} argument every built-in algorithm here accepts. */
    static Long seed(ClassArgs args) {
        return args.integer("seed", null, 0, Long.MAX_VALUE);
    }

    static SplittableRandom random(Long seed) {
        return seed == null ? new SplittableRandom() : new SplittableRandom(seed);
    }
}
