package nni.manager.internal.ids;

import java.security.SecureRandom;
import java.util.function.Predicate;

/**
 * The ids the manager makes, in NNI's forms: experiments (eight distinct lower-case letters and
 * digits) and trials (five letters and digits, a letter first); keeper environments' are
 * {@code nni.keeper}'s. Each is drawn until it is not {@code taken}.
 */
public final class Ids {

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String LOWER = "abcdefghijklmnopqrstuvwxyz";
    private static final String LETTERS = LOWER + "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    private static final String DIGITS = "0123456789";

    private Ids() {
    }

    /** @return a new experiment id: eight distinct characters of {@code a-z0-9}, as NNI's {@code generate_experiment_id} */
    public static String experimentId(Predicate<String> taken) {
        return draw(taken, () -> {
            String alphabet = LOWER + DIGITS;
            StringBuilder id = new StringBuilder(8);
            while (id.length() < 8) {
                char c = alphabet.charAt(RANDOM.nextInt(alphabet.length()));
                if (id.indexOf(String.valueOf(c)) < 0) {
                    id.append(c);
                }
            }
            return id.toString();
        });
    }

    /** @return a new trial id: a letter, then four letters or digits, as NNI's {@code uniqueString(5)} */
    public static String trialId(Predicate<String> taken) {
        return draw(taken, () -> LETTERS.charAt(RANDOM.nextInt(LETTERS.length())) + characters(LETTERS + DIGITS, 4));
    }

    private static String characters(String alphabet, int count) {
        StringBuilder text = new StringBuilder(count);
        for (int i = 0; i < count; i++) {
            text.append(alphabet.charAt(RANDOM.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    private static String draw(Predicate<String> taken, java.util.function.Supplier<String> candidate) {
        while (true) {
            String id = candidate.get();
            if (!taken.test(id)) {
                return id;
            }
        }
    }
}
