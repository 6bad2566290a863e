package nni.api.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads and writes a value at a key path such as {@code machineList[0].password} in a parsed section. */
final class KeyPaths {

    private static final Pattern STEP = Pattern.compile("([^.\\[\\]]+)|\\[(\\d+)\\]");

    private KeyPaths() {
    }

    /** @return a deep copy of a section whose maps and lists can be changed */
    @SuppressWarnings("unchecked")
    static Map<String, Object> copy(Map<String, Object> section) {
        return (Map<String, Object>) deepCopy(section);
    }

    private static Object deepCopy(Object value) {
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> copy = new LinkedHashMap<>();
            map.forEach((key, item) -> copy.put(String.valueOf(key), deepCopy(item)));
            return copy;
        }
        if (value instanceof List<?> list) {
            List<Object> copy = new ArrayList<>();
            list.forEach(item -> copy.add(deepCopy(item)));
            return copy;
        }
        return value;
    }

    /** @return the value at {@code path}, or null when there is none */
    static Object get(Map<String, Object> section, String path) {
        Object at = section;
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

    /** Puts {@code value} at {@code path} of a section made by {@link #copy}; the path's parents must exist. */
    @SuppressWarnings("unchecked")
    static void set(Map<String, Object> section, String path, Object value) {
        List<Object> steps = steps(path);
        Object parent = get(section, join(steps.subList(0, steps.size() - 1)));
        Object last = steps.get(steps.size() - 1);
        if (last instanceof String key && parent instanceof Map<?, ?> map) {
            ((Map<String, Object>) map).put(key, value);
        } else if (last instanceof Integer index && parent instanceof List<?> list) {
            ((List<Object>) list).set(index, value);
        } else {
            throw new IllegalArgumentException("the section has no place " + path);
        }
    }

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
