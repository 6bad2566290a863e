package nni.itest.k8s;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.Yaml;

/**
 * One version of a custom resource's {@code openAPIV3Schema}, as an API server applies it to the
 * objects it is given: types (with {@code nullable} and {@code x-kubernetes-int-or-string}),
 * {@code required}, {@code enum}, {@code pattern}, {@code minimum}/{@code maximum},
 * {@code maxLength}/{@code minLength}, {@code items}, {@code additionalProperties},
 * {@code anyOf}/{@code oneOf}/{@code allOf}. A field the schema does not know is reported too
 * (unless {@code x-kubernetes-preserve-unknown-fields}): the server would silently prune it, so
 * what the platform meant to say would be lost. The root's {@code apiVersion}, {@code kind} and
 * {@code metadata} fields beyond the schema's are the API server's business, not the CRD's.
 */
public final class CrdSchema {

    private static final Set<String> ROOT_FIELDS = Set.of("apiVersion", "kind", "metadata");

    private final String name;
    private final String group;
    private final String kind;
    private final String plural;
    private final String version;
    private final boolean statusSubresource;
    private final Map<String, Object> schema;

    private CrdSchema(String name, String group, String kind, String plural, String version, boolean statusSubresource,
                      Map<String, Object> schema) {
        this.name = name;
        this.group = group;
        this.kind = kind;
        this.plural = plural;
        this.version = version;
        this.statusSubresource = statusSubresource;
        this.schema = schema;
    }

    /** @return the schema of {@code version} in the CRD YAML at {@code resource} (a test resource) */
    @SuppressWarnings("unchecked")
    public static CrdSchema load(String resource, String version) {
        try (InputStream in = CrdSchema.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + resource);
            }
            Map<String, Object> crd = new Yaml().load(in);
            Map<String, Object> spec = (Map<String, Object>) crd.get("spec");
            Map<String, Object> names = (Map<String, Object>) spec.get("names");
            for (Object item : (List<Object>) spec.get("versions")) {
                Map<String, Object> candidate = (Map<String, Object>) item;
                if (version.equals(candidate.get("name"))) {
                    Map<String, Object> openApi = (Map<String, Object>) ((Map<String, Object>) candidate.get("schema")).get("openAPIV3Schema");
                    boolean status = candidate.get("subresources") instanceof Map<?, ?> sub && sub.containsKey("status");
                    return new CrdSchema(String.valueOf(((Map<String, Object>) crd.get("metadata")).get("name")),
                            String.valueOf(spec.get("group")), String.valueOf(names.get("kind")), String.valueOf(names.get("plural")),
                            version, status, openApi);
                }
            }
            throw new IllegalArgumentException(resource + " has no version " + version);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String name() {
        return name;
    }

    public String group() {
        return group;
    }

    public String kind() {
        return kind;
    }

    public String plural() {
        return plural;
    }

    public String version() {
        return version;
    }

    public boolean statusSubresource() {
        return statusSubresource;
    }

    /** @return what the API server would refuse or drop in {@code object}, as {@code path: problem}; empty if nothing */
    public List<String> violations(Map<String, Object> object) {
        List<String> problems = new ArrayList<>();
        check(object, schema, "", problems, true);
        return problems;
    }

    @SuppressWarnings("unchecked")
    private static void check(Object value, Map<String, Object> schema, String path, List<String> problems, boolean root) {
        if (value == null) {
            if (!Boolean.TRUE.equals(schema.get("nullable"))) {
                problems.add(at(path) + ": null is not allowed");
            }
            return;
        }
        for (String combinator : List.of("anyOf", "oneOf")) {
            if (schema.get(combinator) instanceof List<?> options) {
                int matching = 0;
                for (Object option : options) {
                    List<String> optionProblems = new ArrayList<>();
                    check(value, (Map<String, Object>) option, path, optionProblems, false);
                    matching += optionProblems.isEmpty() ? 1 : 0;
                }
                if (matching == 0 || combinator.equals("oneOf") && matching > 1) {
                    problems.add(at(path) + ": matches " + matching + " of the " + combinator + " alternatives");
                }
            }
        }
        if (schema.get("allOf") instanceof List<?> all) {
            for (Object part : all) {
                check(value, (Map<String, Object>) part, path, problems, false);
            }
        }
        boolean intOrString = Boolean.TRUE.equals(schema.get("x-kubernetes-int-or-string"));
        String type = (String) schema.get("type");
        if (intOrString) {
            if (!(value instanceof String) && !isInteger(value)) {
                problems.add(at(path) + ": expected an integer or a string, got " + describe(value));
                return;
            }
        } else if (type != null && !hasType(value, type)) {
            problems.add(at(path) + ": expected " + type + ", got " + describe(value));
            return;
        }
        if (schema.get("enum") instanceof List<?> allowed && !allowed.contains(value)) {
            problems.add(at(path) + ": " + describe(value) + " is not one of " + allowed);
        }
        if (value instanceof String text) {
            if (schema.get("pattern") instanceof String pattern && !Pattern.compile(pattern).matcher(text).find()) {
                problems.add(at(path) + ": \"" + text + "\" does not match " + pattern);
            }
            if (schema.get("maxLength") instanceof Number max && text.length() > max.intValue()) {
                problems.add(at(path) + ": longer than " + max + " characters");
            }
            if (schema.get("minLength") instanceof Number min && text.length() < min.intValue()) {
                problems.add(at(path) + ": shorter than " + min + " characters");
            }
        }
        if (value instanceof Number number && !(value instanceof Boolean)) {
            if (schema.get("minimum") instanceof Number min && number.doubleValue() < min.doubleValue()) {
                problems.add(at(path) + ": " + number + " is below the minimum " + min);
            }
            if (schema.get("maximum") instanceof Number max && number.doubleValue() > max.doubleValue()) {
                problems.add(at(path) + ": " + number + " is above the maximum " + max);
            }
        }
        if (value instanceof List<?> list) {
            if (schema.get("maxItems") instanceof Number max && list.size() > max.intValue()) {
                problems.add(at(path) + ": more than " + max + " items");
            }
            if (schema.get("minItems") instanceof Number min && list.size() < min.intValue()) {
                problems.add(at(path) + ": fewer than " + min + " items");
            }
            if (schema.get("items") instanceof Map<?, ?> items) {
                for (int i = 0; i < list.size(); i++) {
                    check(list.get(i), (Map<String, Object>) items, path + "[" + i + "]", problems, false);
                }
            }
        }
        if (value instanceof Map<?, ?> map) {
            Map<String, Object> properties = schema.get("properties") instanceof Map<?, ?> p ? (Map<String, Object>) p : Map.of();
            if (schema.get("required") instanceof List<?> required) {
                for (Object key : required) {
                    if (!map.containsKey(key)) {
                        problems.add(at(path.isEmpty() ? String.valueOf(key) : path + "." + key) + ": is required");
                    }
                }
            }
            boolean preserve = Boolean.TRUE.equals(schema.get("x-kubernetes-preserve-unknown-fields"))
                    || Boolean.TRUE.equals(schema.get("x-kubernetes-embedded-resource"));
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String key = String.valueOf(entry.getKey());
                String child = path.isEmpty() ? key : path + "." + key;
                if (properties.get(key) instanceof Map<?, ?> property) {
                    if (root && key.equals("metadata")) {
                        checkMetadata(entry.getValue(), (Map<String, Object>) property, problems);
                    } else {
                        check(entry.getValue(), (Map<String, Object>) property, child, problems, false);
                    }
                } else if (schema.get("additionalProperties") instanceof Map<?, ?> additional) {
                    check(entry.getValue(), (Map<String, Object>) additional, child, problems, false);
                } else if (!preserve && !Boolean.TRUE.equals(schema.get("additionalProperties")) && !(root && ROOT_FIELDS.contains(key))) {
                    problems.add(at(child) + ": unknown field (the API server would drop it)");
                }
            }
        }
    }

    /** The CRD may constrain {@code metadata.name}; the rest of the metadata is ObjectMeta, checked by the server itself. */
    @SuppressWarnings("unchecked")
    private static void checkMetadata(Object metadata, Map<String, Object> schema, List<String> problems) {
        if (!(metadata instanceof Map<?, ?> map)) {
            problems.add("metadata: expected object");
            return;
        }
        Map<String, Object> properties = schema.get("properties") instanceof Map<?, ?> p ? (Map<String, Object>) p : Map.of();
        for (Map.Entry<String, Object> property : properties.entrySet()) {
            if (map.containsKey(property.getKey())) {
                check(map.get(property.getKey()), (Map<String, Object>) property.getValue(), "metadata." + property.getKey(), problems,
                        false);
            }
        }
    }

    private static boolean hasType(Object value, String type) {
        return switch (type) {
            case "object" -> value instanceof Map<?, ?>;
            case "array" -> value instanceof List<?>;
            case "string" -> value instanceof String;
            case "integer" -> isInteger(value);
            case "number" -> value instanceof Number;
            case "boolean" -> value instanceof Boolean;
            default -> false;
        };
    }

    private static boolean isInteger(Object value) {
        return value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte
                || value instanceof java.math.BigInteger;
    }

    private static String describe(Object value) {
        return value instanceof String text ? "\"" + text + "\"" : value + " (" + value.getClass().getSimpleName() + ")";
    }

    private static String at(String path) {
        return path.isEmpty() ? "(object)" : path;
    }

    @Override
    public String toString() {
        return kind + " " + group + "/" + version;
    }
}
