package nni.shell.internal.console;

import static org.junit.Assert.assertEquals;

import java.util.List;
import java.util.Optional;

import org.junit.Test;

/** Issue 29: "did you mean" for a mistyped command or option, and nothing for a name that is far from all. */
public class SuggestionsTest {

    private static final List<String> TRIALS_OPTIONS = List.of("--experiment", "--head", "--sort", "--status", "--tail");
    private static final List<String> COMMANDS = List.of("trials", "trial", "top", "experiments", "explog", "lb", "stop", "help");

    @Test
    public void aSwapOrAMissingLetterIsRecognised() {
        assertEquals(Optional.of("--status"), Suggestions.closest("--stauts", TRIALS_OPTIONS));
        assertEquals(Optional.of("--experiment"), Suggestions.closest("--experimnt", TRIALS_OPTIONS));
        assertEquals(Optional.of("trials"), Suggestions.closest("trails", COMMANDS));
        assertEquals(Optional.of("explog"), Suggestions.closest("explgo", COMMANDS));
        assertEquals(Optional.of("nni:trials"), Suggestions.closest("nni:trails", List.of("nni:trials", "nni:trial", "felix:lb")));
    }

    @Test
    public void aNameFarFromEveryOneGetsNoSuggestion() {
        assertEquals(Optional.empty(), Suggestions.closest("--verbose", TRIALS_OPTIONS));
        assertEquals(Optional.empty(), Suggestions.closest("deploy", COMMANDS));
        // two letters typed: any two-letter command is one edit away, which says nothing
        assertEquals(Optional.empty(), Suggestions.closest("ls", COMMANDS));
    }

    @Test
    public void distanceCountsEachEditOnce() {
        assertEquals(0, Suggestions.distance("Top", "top"));
        assertEquals(1, Suggestions.distance("tpo", "top"));
        assertEquals(1, Suggestions.distance("trial", "trials"));
        assertEquals(2, Suggestions.distance("tril", "trials"));
    }
}
