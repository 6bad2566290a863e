package nni.shell.internal.command;

import nni.api.experiment.Outcome;
import nni.api.experiment.Refusal;

/** The one mapping of the experiment service's refusals to the console. */
final class ConsoleAnswers {

    private ConsoleAnswers() {
    }

    /**
     * @return the value of a done outcome
     * @throws IllegalStateException for a CONFLICT, IllegalArgumentException for the others: Gogo
     *                               shows either by its message, which names the experiment or field
     */
    static <T> T of(Outcome<T> outcome) {
        return outcome.orElseThrow(refusal -> refusal.kind() == Refusal.Kind.CONFLICT
                ? new IllegalStateException(refusal.message()) : new IllegalArgumentException(refusal.message()));
    }
}
