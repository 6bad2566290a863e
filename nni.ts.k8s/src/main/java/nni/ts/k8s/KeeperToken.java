package nni.ts.k8s;

import java.util.Locale;

/**
 * How a keeper's token reaches the containers of its environment (the platform setting
 * {@code keeper.token}).
 */
public enum KeeperToken {
    /** A Secret per environment, read through {@code secretKeyRef}: the user needs rights on Secrets. */
    SECRET,
    /** A plain value in the pod spec: whoever may read the job objects may read the token. */
    ENVIRONMENT;

    /** @throws IllegalArgumentException naming the setting and the values it takes */
    public static KeeperToken of(String value) {
        String name = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        return switch (name) {
            case "", "secret" -> SECRET;
            case "environment" -> ENVIRONMENT;
            default -> throw new IllegalArgumentException("keeper.token is '" + value + "'; it takes secret or environment");
        };
    }

    @Override
    public String toString() {
        return name().toLowerCase(Locale.ROOT);
    }
}
