package nni.launcher;

import java.util.Comparator;
import java.util.List;

/**
 * "did you mean": the known word nearest to a mistyped one by edit distance (insertions,
 * deletions, substitutions and swaps of neighbours each cost one), offered when it is near enough
 * to be a typo rather than another word.
 */
final class DidYouMean {

    private DidYouMean() {
    }

    /**
     * @return {@code "; did you mean X?"} for the nearest of {@code known}, or {@code ""} when none is near;
     *         an option's value ({@code --prot=80}) is left out of the comparison
     */
    static String among(String typed, List<String> known) {
        String word = typed.startsWith("-") && typed.contains("=") ? typed.substring(0, typed.indexOf('=')) : typed;
        int allowed = Math.max(1, word.replaceFirst("^-+", "").length() / 3);
        return known.stream().filter(candidate -> !candidate.isEmpty())
                .min(Comparator.comparingInt(candidate -> distance(word, candidate)))
                .filter(nearest -> distance(word, nearest) <= allowed)
                .map(nearest -> "; did you mean " + nearest + "?").orElse("");
    }

    /** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
