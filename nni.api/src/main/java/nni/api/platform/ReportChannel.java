package nni.api.platform;

import java.util.Objects;

/**
 * How one session's trials report to the manager, as {@code nni:platforms} and the web UI's
 * platforms view show it ({@link TrainingSession#reportChannel()}): over HTTP to the manager's
 * port, which the workers must reach, or through files on a storage the manager and the workers
 * share, which needs no connection to the manager. A value: immutable, thread-safe; a final class
 * rather than a record, so that it can gain fields without a major version.
 *
 * @since 1.1
 */
public final class ReportChannel {

    /** The keepers call the manager's HTTP port. */
    public static final String HTTP = "http";
    /** The keepers write and read files on a shared storage; nothing connects to the manager. */
    public static final String FILES = "files";

    private final String transport;
    private final String why;

    private ReportChannel(String transport, String why) {
        this.transport = transport;
        this.why = why;
    }

    /**
     * @param transport {@value #HTTP} or {@value #FILES}
     * @param why       why this transport: the setting that chose it and, when the platform chose by
     *                  itself ({@code keeper.transport = auto}), what it found; where the files are
     * @throws IllegalArgumentException when {@code transport} is neither {@value #HTTP} nor {@value #FILES}
     */
    public static ReportChannel of(String transport, String why) {
        Objects.requireNonNull(why, "why");
        if (!HTTP.equals(transport) && !FILES.equals(transport)) {
            throw new IllegalArgumentException("transport: expected " + HTTP + " or " + FILES + ", got \"" + transport + "\"");
        }
        return new ReportChannel(transport, why);
    }

    /** @return {@value #HTTP} or {@value #FILES} */
    public String transport() {
        return transport;
    }

    /** @return why this transport, and where its files are */
    public String why() {
        return why;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof ReportChannel that && transport.equals(that.transport) && why.equals(that.why);
    }

    @Override
    public int hashCode() {
        return Objects.hash(transport, why);
    }

    @Override
    public String toString() {
        return transport + " (" + why + ")";
    }
}
