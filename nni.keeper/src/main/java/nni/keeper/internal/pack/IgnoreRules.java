package nni.keeper.internal.pack;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rules of one {@code .nniignore} file, with gitignore semantics: blank lines and {@code #}
 * comments skipped, {@code !} re-includes, a trailing {@code /} matches directories only, a
 * {@code /} at the start or in the middle anchors the pattern to the file's directory (otherwise it
 * matches a name at any depth), {@code *}, {@code ?}, {@code [..]} and {@code **}.
 */
public final class IgnoreRules {

    private record Rule(Pattern pattern, boolean negated, boolean directoryOnly) {
    }

    private final String base;
    private final List<Rule> rules = new ArrayList<>();

    /**
     * @param base  the directory holding the file, relative to the code directory ({@code ""} for the root)
     * @param lines the file's lines
     */
    public IgnoreRules(String base, List<String> lines) {
        this.base = base;
        for (String line : lines) {
            String text = stripTrailingSpaces(line);
            if (text.isEmpty() || text.startsWith("#")) {
                continue;
            }
            boolean negated = false;
            if (text.startsWith("!")) {
                negated = true;
                text = text.substring(1);
            } else if (text.startsWith("\\!") || text.startsWith("\\#")) {
                text = text.substring(1);
            }
            boolean directoryOnly = text.endsWith("/");
            if (directoryOnly) {
                text = text.substring(0, text.length() - 1);
            }
            if (text.isEmpty()) {
                continue;
            }
            boolean anchored = text.contains("/");
            if (text.startsWith("/")) {
                text = text.substring(1);
            }
            String regex = (anchored ? "" : "(?:.*/)?") + globToRegex(text);
            rules.add(new Rule(Pattern.compile(regex), negated, directoryOnly));
        }
    }

    private static String stripTrailingSpaces(String line) {
        int end = line.length();
        while (end > 0 && line.charAt(end - 1) == ' ' && !(end > 1 && line.charAt(end - 2) == '\\')) {
            end--;
        }
        return line.substring(0, end).replace("\\ ", " ");
    }

    static String globToRegex(String glob) {
        StringBuilder regex = new StringBuilder();
        int i = 0;
        while (i < glob.length()) {
            char c = glob.charAt(i);
            if (c == '*' && glob.startsWith("**", i)) {
                boolean slashBefore = i == 0 || glob.charAt(i - 1) == '/';
                boolean slashAfter = i + 2 == glob.length() || glob.charAt(i + 2) == '/';
                if (slashBefore && slashAfter) {
                    if (i + 2 == glob.length()) {
                        regex.append(".*"); // "x/**": everything inside
                        i += 2;
                    } else {
                        regex.append("(?:.*/)?"); // "**/" : zero or more directories
                        i += 3;
                    }
                    continue;
                }
                regex.append("[^/]*");
                i += 2;
                continue;
            }
            switch (c) {
                case '*' -> regex.append("[^/]*");
                case '?' -> regex.append("[^/]");
                case '[' -> {
                    int close = glob.indexOf(']', i + 1);
                    if (close < 0) {
                        regex.append("\\[");
                    } else {
                        String set = glob.substring(i + 1, close);
                        if (set.startsWith("!")) {
                            set = "^" + set.substring(1);
                        }
                        regex.append('[').append(set.replace("\\", "\\\\")).append(']');
                        i = close;
                    }
                }
                case '\\' -> {
                    if (i + 1 < glob.length()) {
                        regex.append(Pattern.quote(String.valueOf(glob.charAt(++i))));
                    }
                }
                default -> regex.append(Pattern.quote(String.valueOf(c)));
            }
            i++;
        }
        return regex.toString();
    }

    /**
     * @param path        relative to the code directory, with {@code /}
     * @param isDirectory whether it names a directory
     * @return TRUE ignored, FALSE re-included, null when no rule of this file matches
     */
    public Boolean decide(String path, boolean isDirectory) {
        String relative;
        if (base.isEmpty()) {
            relative = path;
        } else if (path.startsWith(base + "/")) {
            relative = path.substring(base.length() + 1);
        } else {
            return null;
        }
        Boolean decision = null;
        for (Rule rule : rules) {
            if (rule.directoryOnly && !isDirectory) {
                continue;
            }
            if (rule.pattern.matcher(relative).matches()) {
                decision = !rule.negated;
            }
        }
        return decision;
    }
}
