package nni.manager.internal.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads and replaces values of a parsed configuration (maps and lists) at key paths such as
 * {@code trainingService[1].machineList[0].password}, the spelling of {@code ConfigProblem} and
 * {@code SectionCheck.secrets}. Replacing never changes its input: it works on a deep copy.
 */
final class SecretPaths {

    private SecretPaths() {
    }

    /** @return the value at {@code path}, or null when the tree has nothing there */
    static Object get(Object tree, String path) {
        Object node = tree;
        for (Object step : steps(path)) {
            if (step instanceof String key && node instanceof Map<?, ?> map) {
                node = map.get(key);
            } else if (step instanceof Integer index && node instanceof List<?> list && index < list.size()) {
                node = list.get(index);
            } else {
                return null;
            }
        }
        return node;
    }

    /**
     * @param replacements key path to new value; paths the tree has no value at are skipped
     * @return a deep copy of {@code tree} with the replacements made
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> replaced(Map<String, Object> tree, Map<String, ?> replacements) {
        Map<String, Object> copy = (Map<String, Object>) deepCopy(tree);
        for (Map.Entry<String, ?> replacement : replacements.entrySet()) {
            List<Object> steps = steps(replacement.getKey());
            Object parent = get(copy, path(steps.subList(0, steps.size() - 1)));
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
        for (String part : path.split("\\.")) {
            int bracket = part.indexOf('[');
            String key = bracket < 0 ? part : part.substring(0, bracket);
            if (!key.isEmpty()) {
                steps.add(key);
            }
            while (bracket >= 0) {
                int close = part.indexOf(']', bracket);
                steps.add(Integer.parseInt(part.substring(bracket + 1, close)));
                bracket = part.indexOf('[', close);
            }
        }
        return steps;
    }

    private static String path(List<Object> steps) {
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
