package nni.tuners.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import nni.api.searchspace.SearchSpace;
import nni.api.searchspace.SearchSpaceException;

/** Search spaces for tests: {@code space("x", "choice", List.of(5, 7), "y", "normal", List.of(0, 1))}. */
final class Spaces {

    private Spaces() {
    }

    static Map<String, Object> json(Object... entries) {
        Map<String, Object> json = new LinkedHashMap<>();
        for (int i = 0; i < entries.length; i += 3) {
            Map<String, Object> spec = new LinkedHashMap<>();
            spec.put("_type", entries[i + 1]);
            spec.put("_value", entries[i + 2]);
            json.put((String) entries[i], spec);
        }
        return json;
    }

    static SearchSpace space(Object... entries) {
        try {
            return SearchSpace.parse(json(entries));
        } catch (SearchSpaceException e) {
            throw new AssertionError(e.getMessage(), e);
        }
    }

    static Map<String, Object> option(String name, Object... entries) {
        Map<String, Object> option = new LinkedHashMap<>();
        option.put("_name", name);
        option.putAll(json(entries));
        return option;
    }

    static List<Object> list(Object... values) {
        return List.of(values);
    }
}
