package nni.keeper.internal.reuse;

import java.security.SecureRandom;
import java.util.function.Predicate;

/** The ids of keeper environments, in NNI's form: five letters or digits, drawn until one is free. */
final class EnvironmentIds {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final char[] ALPHABET = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".toCharArray();

    private EnvironmentIds() {
    }

    /** @return five letters or digits that {@code taken} does not hold */
    static String next(Predicate<String> taken) {
        String id;
        do {
            char[] drawn = new char[5];
            for (int i = 0; i < drawn.length; i++) {
                drawn[i] = ALPHABET[RANDOM.nextInt(ALPHABET.length)];
            }
            id = new String(drawn);
        } while (taken.test(id));
        return id;
    }
}
