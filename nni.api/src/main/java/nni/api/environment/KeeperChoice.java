package nni.api.environment;

import java.util.Locale;

/**
 * Which keeper a platform's configuration asks for ({@code keeper = java | python | auto}).
 */
public enum KeeperChoice {
    /** whatever the worker can run: Java 17 when it has it, else Python 3.7 */
    AUTO,
    /** always the Java keeper */
    JAVA,
    /** always the Python keeper */
    PYTHON;

    /**
     * @return the choice named by a configuration value, ignoring case
     * @throws IllegalArgumentException naming the accepted values
     */
    public static KeeperChoice of(String value) {
        for (KeeperChoice choice : values()) {
            if (choice.name().equalsIgnoreCase(value == null ? "" : value.strip())) {
                return choice;
            }
        }
        throw new IllegalArgumentException("keeper: expected java, python or auto, got \"" + value + "\"");
    }

    /** @return whether this choice allows {@code runtime} */
    public boolean allows(KeeperRuntime runtime) {
        return this == AUTO || name().equals(runtime.name());
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
