package nni.ts.k8s;

import java.util.Locale;

/**
 * How a keeper's token reaches the containers of its environment (the platform settings
 * {@code keeper.token} and {@code keeper.token.secret}).
 */
public enum KeeperToken {
    /** A Secret per environment, read through {@code secretKeyRef}: the user needs rights to create and delete Secrets. */
    SECRET,
    /**
     * One Secret that an administrator created and named in {@code keeper.token.secret}: each
     * environment's token is a key of it (the job object's name), added and removed by patches and
     * read through {@code secretKeyRef}; the user needs {@code get} and {@code patch} on that Secret only.
     */
    NAMED_SECRET,
    /** A plain value in the pod spec: whoever may read the job objects may read the token. */
    ENVIRONMENT;

    /** What a Secret's name may be: a DNS subdomain (RFC 1123). */
    private static final String SECRET_NAME = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

    /** @throws IllegalArgumentException naming the setting and the values it takes */
    public static KeeperToken of(String value) {
        return of(value, null);
    }

    /**
     * @param value  {@code keeper.token}: secret (the default) or environment
     * @param secret {@code keeper.token.secret}: the name of an existing Secret, or blank
     * @throws IllegalArgumentException naming the setting and the values it takes
     */
    public static KeeperToken of(String value, String secret) {
        String name = value == null ? "" : value.strip().toLowerCase(Locale.ROOT);
        boolean named = secret != null && !secret.isBlank();
        if (named && !secret.strip().matches(SECRET_NAME) || named && secret.strip().length() > 253) {
            throw new IllegalArgumentException("keeper.token.secret is '" + secret + "'; it takes the name of a Secret"
                    + " (lower-case letters, digits, '-' and '.')");
        }
        return switch (name) {
            case "", "secret" -> named ? NAMED_SECRET : SECRET;
            case "environment" -> {
                if (named) {
                    throw new IllegalArgumentException("keeper.token.secret is set but keeper.token is environment; set"
                            + " keeper.token=secret to read the tokens from Secret " + secret.strip());
                }
                yield ENVIRONMENT;
            }
            default -> throw new IllegalArgumentException("keeper.token is '" + value + "'; it takes secret or environment");
        };
    }

    @Override
    public String toString() {
        return this == NAMED_SECRET ? "secret (named)" : name().toLowerCase(Locale.ROOT);
    }
}
