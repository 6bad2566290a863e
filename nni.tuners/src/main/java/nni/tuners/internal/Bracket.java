package nni.tuners.internal;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * One bracket of Hyperband: successive halving that starts {@code n} configurations at budget
 * {@code r} and, round after round, keeps the best {@code 1/eta} of them at {@code eta} times the
 * budget, until one configuration runs at the maximum budget. NNI's arithmetic (hyperband_advisor,
 * bohb_advisor): {@code n = ceil((sMax + 1) * eta^s / (s + 1))}, {@code r = maxBudget / eta^s}, and
 * round {@code i} runs {@code floor(n / eta^i)} configurations at {@code floor(r * eta^i)}.
 *
 * <p>A configuration's result in a round is its final result, else its latest intermediate one; a
 * round is over when each of its trials ended, whatever way.
 */
final class Bracket {

    /** NNI's tolerance against floating-point error in its floors and ceilings. */
    private static final double EPSILON = 1e-6;

    /** A configuration a round runs, and the best-known result of its trial. */
    static final class Entry {
        final long id;
        final double[] point;
        final int budget;
        private long sequence = -1;
        private Double value;

        Entry(long id, double[] point, int budget) {
            this.id = id;
            this.point = point;
            this.budget = budget;
        }

        Double value() {
            return value;
        }
    }

    private final int s;
    private final int eta;
    private final double n;
    private final double r;
    private final boolean minimize;
    private final List<Map<Long, Entry>> rounds = new ArrayList<>();
    private final List<Integer> ended = new ArrayList<>();

    Bracket(int s, int sMax, int eta, double maxBudget, boolean minimize) {
        this.s = s;
        this.eta = eta;
        this.n = Math.ceil((sMax + 1) * Math.pow(eta, s) / (s + 1) - EPSILON);
        this.r = maxBudget / Math.pow(eta, s);
        this.minimize = minimize;
    }

    /** @return NNI's {@code s_max}: the index of the bracket with the most rounds, for budgets from {@code min} to {@code max} */
    static int sMax(double minBudget, double maxBudget, int eta) {
        return (int) Math.floor(Math.log(maxBudget / minBudget) / Math.log(eta) + EPSILON);
    }

    int s() {
        return s;
    }

    /** @return how many configurations round {@code i} runs */
    int size(int i) {
        return (int) Math.floor(n / Math.pow(eta, i) + EPSILON);
    }

    /** @return the budget of round {@code i} ({@code TRIAL_BUDGET}) */
    int budget(int i) {
        return (int) Math.floor(r * Math.pow(eta, i) + EPSILON);
    }

    /** @return the rounds given out so far */
    int roundsStarted() {
        return rounds.size();
    }

    /** @return whether every round has been given out (the last one runs at the maximum budget) */
    boolean allStarted() {
        return rounds.size() > s;
    }

    /** @return whether the last round has been given out and all its trials ended */
    boolean finished() {
        return allStarted() && roundOver(s);
    }

    /** Starts round 0 with new configurations, each already with its id. */
    List<Entry> start(List<Entry> entries) {
        if (!rounds.isEmpty()) {
            throw new IllegalStateException("bracket " + s + " has started already");
        }
        return record(entries);
    }

    private List<Entry> record(List<Entry> entries) {
        Map<Long, Entry> round = new LinkedHashMap<>();
        entries.forEach(entry -> round.put(entry.id, entry));
        rounds.add(round);
        ended.add(0);
        return entries;
    }

    /** @return the round an id of this bracket runs in, or -1 */
    int roundOf(long id) {
        for (int i = 0; i < rounds.size(); i++) {
            if (rounds.get(i).containsKey(id)) {
                return i;
            }
        }
        return -1;
    }

    /** @return the entry of an id of this bracket */
    Entry entry(long id) {
        return rounds.get(roundOf(id)).get(id);
    }

    /**
     * A result of a trial of this bracket; a later sequence replaces an earlier one, a final
     * result ({@code sequence} {@link Long#MAX_VALUE}) every intermediate one.
     */
    void result(long id, long sequence, double value) {
        int i = roundOf(id);
        Entry entry = rounds.get(i).get(id);
        if (sequence > entry.sequence) {
            entry.sequence = sequence;
            entry.value = value;
        }
    }

    /**
     * A trial of this bracket ended. When it was the last of its round and a round follows, the
     * round's best {@code 1/eta} go on at the next budget.
     *
     * @param ids gives the promoted configurations their new ids
     * @return the next round's entries when this end completed a round; empty otherwise
     */
    List<Entry> ended(long id, LongSupplier ids) {
        int i = roundOf(id);
        ended.set(i, ended.get(i) + 1);
        if (!roundOver(i) || i != rounds.size() - 1 || allStarted()) {
            return List.of();
        }
        List<Entry> next = new ArrayList<>();
        for (Entry best : best(i, size(i + 1))) {
            next.add(new Entry(ids.getAsLong(), best.point, budget(i + 1)));
        }
        record(next);
        while (rounds.get(rounds.size() - 1).isEmpty() && !allStarted()) {
            record(List.of()); // no trial of the round gave a result: nothing goes on, the bracket is over
        }
        return next;
    }

    private boolean roundOver(int i) {
        return ended.get(i) >= rounds.get(i).size();
    }

    /** @return the {@code count} best entries of round {@code i} that have a result, best first */
    List<Entry> best(int i, int count) {
        Comparator<Entry> byValue = Comparator.comparingDouble(Entry::value);
        return rounds.get(i).values().stream().filter(e -> e.value != null)
                .sorted(minimize ? byValue : byValue.reversed()).limit(count).toList();
    }
}
