package nni.api.experiment;

import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The result of an operation: done with a value, or refused with a {@link Refusal}. Refusals are
 * values rather than exceptions so that the engine says once what went wrong and each face maps it
 * once. An exception out of an operation means a fault (a disk error, a bug), not a refusal.
 *
 * @param <T> the value when done ({@link Void} and {@code null} for operations without one)
 */
public final class Outcome<T> {

    private final T value;
    private final Refusal refusal;

    private Outcome(T value, Refusal refusal) {
        this.value = value;
        this.refusal = refusal;
    }

    /** @param value the result; may be null (operations without one) */
    public static <T> Outcome<T> done(T value) {
        return new Outcome<>(value, null);
    }

    public static <T> Outcome<T> refused(Refusal refusal) {
        return new Outcome<>(null, Objects.requireNonNull(refusal, "refusal"));
    }

    public boolean isDone() {
        return refusal == null;
    }

    /** @return why not; empty when done */
    public Optional<Refusal> refusal() {
        return Optional.ofNullable(refusal);
    }

    /**
     * @return the value of a done outcome
     * @throws NoSuchElementException with the refusal's message when refused
     */
    public T value() {
        if (refusal != null) {
            throw new NoSuchElementException(refusal.message());
        }
        return value;
    }

    /** @return the value, or what {@code toException} makes of the refusal, thrown */
    public <X extends Exception> T orElseThrow(Function<Refusal, X> toException) throws X {
        if (refusal != null) {
            throw toException.apply(refusal);
        }
        return value;
    }

    /** @return the value mapped when done; the same refusal when refused */
    public <U> Outcome<U> map(Function<? super T, ? extends U> mapper) {
        return refusal != null ? refused(refusal) : done(mapper.apply(value));
    }

    /** @return the next operation's outcome when done; the same refusal when refused */
    public <U> Outcome<U> then(Function<? super T, Outcome<U>> next) {
        return refusal != null ? refused(refusal) : next.apply(value);
    }

    @Override
    public String toString() {
        return refusal != null ? "refused " + refusal : "done " + value;
    }
}
