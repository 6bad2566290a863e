package nni.shell.internal.console;

import java.util.Collection;
import java.util.Optional;

/**
 * "Did you mean": the known name closest to a mistyped one, by edit distance (insertions,
 * deletions, substitutions and swaps of two neighbours each count one), when it is close enough
 * to be the likely intent: at most two edits, and fewer than half the typed name's length.
 */
final class Suggestions {

    private Suggestions() {
    }

    /** @return the closest of {@code known} to {@code typed}, the first of equals, or empty when none is close */
    static Optional<String> closest(String typed, Collection<String> known) {
        String best = null;
        int bestDistance = Integer.MAX_VALUE;
        for (String name : known) {
            int distance = distance(typed, name);
            if (distance < bestDistance) {
                best = name;
                bestDistance = distance;
            }
        }
        int limit = Math.min(2, (bare(typed).length() - 1) / 2);
        return bestDistance > 0 && bestDistance <= limit ? Optional.ofNullable(best) : Optional.empty();
    }

    /** @return the optimal string alignment distance of the two, ignoring case */
    static int distance(String a, String b) {
        String x = a.toLowerCase(java.util.Locale.ROOT);
        String y = b.toLowerCase(java.util.Locale.ROOT);
        int[][] d = new int[x.length() + 1][y.length() + 1];
        for (int i = 0; i <= x.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= y.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= x.length(); i++) {
            for (int j = 1; j <= y.length(); j++) {
                int cost = x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && x.charAt(i - 1) == y.charAt(j - 2) && x.charAt(i - 2) == y.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[x.length()][y.length()];
    }

    /** @return the name without its scope or leading dashes: what the length limit is judged on */
    private static String bare(String name) {
        return name.replaceFirst("^[^:]*:", "").replaceFirst("^-+", "");
    }
}
