package nni.api.platform;

import java.util.Objects;

/**
 * How one session's trials report to the manager, as {@code nni:platforms} and the web UI's
 * platforms view show it ({@link TrainingSession#reportChannel()}): over HTTP to the manager's
 * port, which the workers must reach, or through files on a storage the manager and the workers
 * share, which needs no connection to the manager.
 *
 * @param transport {@value #HTTP} or {@value #FILES}
 * @param why       why this transport: the setting that chose it and, when the platform chose by
 *                  itself ({@code keeper.transport = auto}), what it found; where the files are
 * @since 1.1
 */
public record ReportChannel(String transport, String why) {

    /** The keepers call the manager's HTTP port. */
    public static final String HTTP = "http";
    /** The keepers write and read files on a shared storage; nothing connects to the manager. */
    public static final String FILES = "files";

    /**
     * @throws IllegalArgumentException when {@code transport} is neither {@value #HTTP} nor {@value #FILES}
     */
    public ReportChannel {
        Objects.requireNonNull(why, "why");
        if (!HTTP.equals(transport) && !FILES.equals(transport)) {
            throw new IllegalArgumentException("transport: expected " + HTTP + " or " + FILES + ", got \"" + transport + "\"");
        }
    }
}
