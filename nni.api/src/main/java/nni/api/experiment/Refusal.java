package nni.api.experiment;

import java.util.Objects;
import java.util.Optional;

/**
 * Why an operation of {@link ExperimentService} did not happen, as a value: each face maps the
 * {@link Kind} once (REST: 404, 409, 400; the console: the message). Immutable.
 */
public final class Refusal {

    /** What kind of no it is. */
    public enum Kind {
        /** The experiment or trial named does not exist or is not open. */
        NOT_FOUND,
        /** The request is fine but the experiment's state refuses it now (stopped, read-only, busy). */
        CONFLICT,
        /** The input is not acceptable; {@link #field()} names what is wrong. */
        INVALID
    }

    private final Kind kind;
    private final String field;
    private final String message;

    private Refusal(Kind kind, String field, String message) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.field = field;
        this.message = Objects.requireNonNull(message, "message");
    }

    /** @param message what is not there, with what is (the open experiments, say) */
    public static Refusal notFound(String message) {
        return new Refusal(Kind.NOT_FOUND, null, message);
    }

    /** @param message why the experiment's state refuses it now */
    public static Refusal conflict(String message) {
        return new Refusal(Kind.CONFLICT, null, message);
    }

    /**
     * @param field   the input's field at fault, as its user wrote it ({@code trialConcurrency},
     *                {@code searchSpace.lr._value[1]})
     * @param message the whole message, naming the field
     */
    public static Refusal invalid(String field, String message) {
        return new Refusal(Kind.INVALID, Objects.requireNonNull(field, "field"), message);
    }

    public Kind kind() {
        return kind;
    }

    /** @return the field at fault, for {@link Kind#INVALID} */
    public Optional<String> field() {
        return Optional.ofNullable(field);
    }

    /** @return the message for the user; an INVALID one starts with its field */
    public String message() {
        return message;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof Refusal r && r.kind == kind && Objects.equals(r.field, field) && r.message.equals(message);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, field, message);
    }

    @Override
    public String toString() {
        return kind + ": " + message;
    }
}
