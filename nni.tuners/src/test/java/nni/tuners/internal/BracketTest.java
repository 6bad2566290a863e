package nni.tuners.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.Test;

/** Hyperband's arithmetic as NNI computes it, against the tables of Li et al. (2017). */
public class BracketTest {

    /** @return "n/r" of every round of bracket {@code s} */
    private static List<String> rounds(int s, double minBudget, double maxBudget, int eta) {
        Bracket bracket = new Bracket(s, Bracket.sMax(minBudget, maxBudget, eta), eta, maxBudget, false);
        List<String> rounds = new ArrayList<>();
        for (int i = 0; i <= s; i++) {
            rounds.add(bracket.size(i) + "/" + bracket.budget(i));
        }
        return rounds;
    }

    @Test
    public void r81Eta3GivesThePapersFiveBrackets() {
        assertEquals(4, Bracket.sMax(1, 81, 3));
        assertEquals(List.of("81/1", "27/3", "9/9", "3/27", "1/81"), rounds(4, 1, 81, 3));
        assertEquals(List.of("34/3", "11/9", "3/27", "1/81"), rounds(3, 1, 81, 3));
        assertEquals(List.of("15/9", "5/27", "1/81"), rounds(2, 1, 81, 3));
        assertEquals(List.of("8/27", "2/81"), rounds(1, 1, 81, 3));
        assertEquals(List.of("5/81"), rounds(0, 1, 81, 3));
    }

    @Test
    public void nnisExampleR100FloorsTheBudgets() {
        assertEquals(4, Bracket.sMax(1, 100, 3));
        assertEquals(List.of("81/1", "27/3", "9/11", "3/33", "1/100"), rounds(4, 1, 100, 3));
        assertEquals(List.of("5/100"), rounds(0, 1, 100, 3));
        // R 60 (the benchmarking example): log3 60 = 3.7
        assertEquals(3, Bracket.sMax(1, 60, 3));
        assertEquals(List.of("27/2", "9/6", "3/20", "1/60"), rounds(3, 1, 60, 3));
    }

    @Test
    public void bohbsBudgetsRunFromMinToMaxBudget() {
        assertEquals(3, Bracket.sMax(1, 27, 3));
        assertEquals(List.of("27/1", "9/3", "3/9", "1/27"), rounds(3, 1, 27, 3));
        assertEquals(1, Bracket.sMax(3, 9, 3));
        assertEquals(List.of("3/3", "1/9"), rounds(1, 3, 9, 3));
        assertEquals(2, Bracket.sMax(1, 16, 4));
        assertEquals(List.of("16/1", "4/4", "1/16"), rounds(2, 1, 16, 4));
    }

    private static Bracket started(boolean minimize, AtomicLong ids) {
        Bracket bracket = new Bracket(2, 2, 3, 9, minimize);
        List<Bracket.Entry> entries = new ArrayList<>();
        for (int k = 0; k < bracket.size(0); k++) {
            entries.add(new Bracket.Entry(ids.getAndIncrement(), new double[] {k}, bracket.budget(0)));
        }
        bracket.start(entries);
        return bracket;
    }

    /** @return the points (the k of round 0) of the entries */
    private static List<Double> points(List<Bracket.Entry> entries) {
        return entries.stream().map(e -> e.point[0]).toList();
    }

    @Test
    public void theBestThirdGoesOnAtThreeTimesTheBudgetOnceTheRoundEnded() {
        for (boolean minimize : List.of(false, true)) {
            AtomicLong ids = new AtomicLong();
            Bracket bracket = started(minimize, ids);
            double[] results = {0.5, 0.9, 0.1, 0.7, 0.3, 0.8, 0.2, 0.6, 0.4};
            for (long id = 0; id < 9; id++) {
                bracket.result(id, Long.MAX_VALUE, results[(int) id]);
            }
            for (long id = 0; id < 8; id++) {
                assertTrue(bracket.ended(id, ids::getAndIncrement).isEmpty());
            }
            List<Bracket.Entry> next = bracket.ended(8, ids::getAndIncrement);
            assertEquals(minimize ? List.of(2.0, 6.0, 4.0) : List.of(1.0, 5.0, 3.0), points(next));
            assertTrue(next.stream().allMatch(e -> e.budget == 3));
            assertEquals(List.of(9L, 10L, 11L), next.stream().map(e -> e.id).toList());
            assertEquals(1, bracket.roundOf(10));
            assertFalse(bracket.allStarted());
        }
    }

    @Test
    public void aFinalResultOutranksIntermediateOnesAndTheLatestIntermediateOneCounts() {
        AtomicLong ids = new AtomicLong();
        Bracket bracket = started(false, ids);
        bracket.result(0, 1, 0.9);
        bracket.result(0, 2, 0.1);      // later: replaces 0.9
        bracket.result(1, 5, 0.2);
        bracket.result(1, 3, 0.95);     // earlier than what is known: ignored
        bracket.result(2, 1, 0.99);
        bracket.result(2, Long.MAX_VALUE, 0.05); // final
        bracket.result(2, 7, 0.99);     // an intermediate after the final changes nothing
        bracket.result(3, 0, 0.3);
        // 4..8 never report: they are not promoted
        List<Bracket.Entry> next = List.of();
        for (long id = 0; id < 9; id++) {
            next = bracket.ended(id, ids::getAndIncrement);
        }
        assertEquals(List.of(3.0, 1.0, 0.0), points(next));
    }

    @Test
    public void theLastRoundRunsOneAtTheMaximumBudgetAndThenTheBracketIsOver() {
        AtomicLong ids = new AtomicLong();
        Bracket bracket = started(false, ids);
        List<Bracket.Entry> second = endRound(bracket, List.of(0L, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L), ids);
        assertEquals(List.of(8.0, 7.0, 6.0), points(second));
        List<Bracket.Entry> last = endRound(bracket, second.stream().map(e -> e.id).toList(), ids);
        assertEquals(List.of(8.0), points(last));
        assertEquals(9, last.get(0).budget);
        assertTrue(bracket.allStarted());
        assertFalse(bracket.finished());
        assertTrue(bracket.ended(last.get(0).id, ids::getAndIncrement).isEmpty());
        assertTrue(bracket.finished());
    }

    @Test
    public void aRoundWhoseTrialsAllEndedWithoutResultsEndsTheBracket() {
        AtomicLong ids = new AtomicLong();
        Bracket bracket = started(false, ids);
        for (long id = 0; id < 9; id++) {
            assertTrue(bracket.ended(id, ids::getAndIncrement).isEmpty());
        }
        assertTrue(bracket.finished());
    }

    /** Reports each entry's point as its final result and ends them all; @return what the last end gave */
    private static List<Bracket.Entry> endRound(Bracket bracket, List<Long> round, AtomicLong ids) {
        List<Bracket.Entry> next = List.of();
        for (long id : round) {
            bracket.result(id, Long.MAX_VALUE, bracket.entry(id).point[0]);
            next = bracket.ended(id, ids::getAndIncrement);
        }
        return next;
    }
}
