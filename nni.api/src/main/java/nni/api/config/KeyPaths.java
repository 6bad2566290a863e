package nni.api.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Key paths into a parsed configuration (maps, lists and plain values, as YAML or JSON parsing gives
 * them), spelled as {@link ConfigProblem#path()} and {@link SectionCheck#secrets()} spell them:
 * {@code machineList[0].password}, {@code storage.azureAccount}.
 *
 * <p>Stateless and thread-safe. Nothing here changes its input: {@link #replaced} and {@link #copy}
 * work on deep copies.
 *
 * @since nni.api.config 1.1
 */
public final class KeyPaths {

    private static final Pattern STEP = Pattern.compile("([^.\\[\\]]+)|\\[(\\d+)\\]");

    private KeyPaths() {
    }

    /**
     * @param tree a map, a list or a value
     * @return the value at {@code path}, or null when the tree has nothing there
     */
    public static Object get(Object tree, String path) {
        Object at = tree;
        for (Object step : steps(path)) {
            if (step instanceof String key && at instanceof Map<?, ?> map) {
                at = map.get(key);
            } else if (step instanceof Integer index && at instanceof List<?> list && index < list.size()) {
                at = list.get(index);
            } else {
                return null;
            }
        }
        return at;
    }

    /** @return a deep copy of {@code tree} whose maps (with String keys) and lists can be changed */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> copy(Map<String, ?> tree) {
        return (Map<String, Object>) deepCopy(tree);
    }

    /**
     * @param replacements key path to its new value; a path at which the tree holds no value is skipped
     * @return a deep copy of {@code tree} with the replacements made
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> replaced(Map<String, ?> tree, Map<String, ?> replacements) {
        Map<String, Object> copy = copy(tree);
        for (Map.Entry<String, ?> replacement : replacements.entrySet()) {
            List<Object> steps = steps(replacement.getKey());
            if (steps.isEmpty()) {
                continue;
            }
            Object parent = get(copy, join(steps.subList(0, steps.size() - 1)));
            Object last = steps.get(steps.size() - 1);
            if (last instanceof String key && parent instanceof Map<?, ?> map && map.get(key) != null) {
                ((Map<String, Object>) map).put(key, replacement.getValue());
            } else if (last instanceof Integer index && parent instanceof List<?> list && index < list.size()) {
                ((List<Object>) list).set(index, replacement.getValue());
            }
        }
        return copy;
    }

    private static Object deepCopy(Object node) {
        if (node instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, value) -> copy.put(String.valueOf(key), deepCopy(value)));
            return copy;
        }
        if (node instanceof List<?> list) {
            List<Object> copy = new ArrayList<>(list.size());
            list.forEach(value -> copy.add(deepCopy(value)));
            return copy;
        }
        return node;
    }

    /** @return the keys (String) and list indices (Integer) of a key path */
    private static List<Object> steps(String path) {
        List<Object> steps = new ArrayList<>();
        Matcher step = STEP.matcher(path);
        while (step.find()) {
            steps.add(step.group(1) != null ? step.group(1) : (Object) Integer.valueOf(step.group(2)));
        }
        return steps;
    }

    private static String join(List<Object> steps) {
        StringBuilder path = new StringBuilder();
        for (Object step : steps) {
            if (step instanceof Integer index) {
                path.append('[').append(index).append(']');
            } else {
                path.append(path.length() == 0 ? "" : ".").append(step);
            }
        }
        return path.toString();
    }
}
