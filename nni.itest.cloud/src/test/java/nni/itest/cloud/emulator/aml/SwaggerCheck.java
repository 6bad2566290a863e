package nni.itest.cloud.emulator.aml;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Checks a request body against a definition of a Swagger 2.0 document as Azure's services read
 * them: a definition's properties are its own plus those of every {@code allOf} base, a base with a
 * {@code discriminator} is checked as the definition whose {@code x-ms-discriminator-value} the body
 * names, {@code additionalProperties: false} refuses unknown fields, {@code readOnly} fields may not
 * be sent, {@code x-nullable} allows null; types, enums, {@code minLength} and {@code pattern} as in
 * JSON Schema.
 */
public final class SwaggerCheck {

    private final JsonNode definitions;

    public SwaggerCheck(String resource) {
        try (InputStream in = SwaggerCheck.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource " + resource);
            }
            definitions = new ObjectMapper().readTree(in).path("definitions");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return every problem of {@code body} as the definition {@code name} (empty when it conforms) */
    public List<String> problems(JsonNode body, String name) {
        List<String> problems = new ArrayList<>();
        check(body, definition(name), "", problems);
        return problems;
    }

    private JsonNode definition(String name) {
        JsonNode definition = definitions.get(name);
        if (definition == null) {
            throw new IllegalArgumentException("no definition " + name);
        }
        return definition;
    }

    private JsonNode resolve(JsonNode schema) {
        while (schema.has("$ref")) {
            String ref = schema.get("$ref").asText();
            schema = definition(ref.substring(ref.lastIndexOf('/') + 1));
        }
        return schema;
    }

    private void check(JsonNode value, JsonNode schema, String at, List<String> problems) {
        boolean nullable = schema.path("x-nullable").asBoolean(false);
        schema = resolve(schema);
        if (value == null || value.isNull()) {
            if (!nullable && !schema.path("x-nullable").asBoolean(false)) {
                problems.add(at + ": may not be null");
            }
            return;
        }
        if (schema.has("discriminator") && value.isObject()) {
            String kind = value.path(schema.get("discriminator").asText()).asText("");
            JsonNode derived = derived(schema, kind);
            if (derived == null) {
                problems.add(at + schema.get("discriminator").asText() + ": no definition for \"" + kind + "\"");
                return;
            }
            schema = derived;
        }
        String type = schema.path("type").asText(schema.has("properties") || schema.has("allOf") ? "object" : "");
        switch (type) {
            case "object" -> object(value, schema, at, problems);
            case "string" -> {
                if (!value.isTextual()) {
                    problems.add(at + ": expected a string");
                    return;
                }
                String text = value.asText();
                if (schema.has("minLength") && text.length() < schema.get("minLength").asInt()) {
                    problems.add(at + ": shorter than " + schema.get("minLength").asInt());
                }
                if (schema.has("pattern") && !Pattern.compile(schema.get("pattern").asText()).matcher(text).find()) {
                    problems.add(at + ": does not match " + schema.get("pattern").asText());
                }
                if (schema.has("enum")) {
                    Set<String> allowed = new LinkedHashSet<>();
                    schema.get("enum").forEach(v -> allowed.add(v.asText()));
                    if (!allowed.contains(text)) {
                        problems.add(at + ": \"" + text + "\" is not one of " + allowed);
                    }
                }
            }
            case "integer" -> {
                if (!value.isIntegralNumber()) {
                    problems.add(at + ": expected an integer");
                }
            }
            case "number" -> {
                if (!value.isNumber()) {
                    problems.add(at + ": expected a number");
                }
            }
            case "boolean" -> {
                if (!value.isBoolean()) {
                    problems.add(at + ": expected true or false");
                }
            }
            case "array" -> {
                if (!value.isArray()) {
                    problems.add(at + ": expected a list");
                    return;
                }
                for (int i = 0; i < value.size(); i++) {
                    check(value.get(i), schema.path("items"), at + "[" + i + "]", problems);
                }
            }
            default -> {
                // untyped: anything
            }
        }
    }

    private JsonNode derived(JsonNode base, String kind) {
        for (Iterator<Map.Entry<String, JsonNode>> it = definitions.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            JsonNode candidate = entry.getValue();
            if (kind.equals(candidate.path("x-ms-discriminator-value").asText(null))) {
                for (JsonNode parent : candidate.path("allOf")) {
                    if (resolve(parent) == base) {
                        return candidate;
                    }
                }
            }
        }
        return null;
    }

    private void object(JsonNode value, JsonNode schema, String at, List<String> problems) {
        if (!value.isObject()) {
            problems.add(at + ": expected an object");
            return;
        }
        Map<String, JsonNode> properties = new LinkedHashMap<>();
        Set<String> required = new LinkedHashSet<>();
        collect(schema, properties, required);
        String prefix = at.isEmpty() ? "" : at + ".";
        for (String name : required) {
            if (!value.has(name)) {
                problems.add(prefix + name + ": is required");
            }
        }
        JsonNode additional = schema.get("additionalProperties");
        for (Iterator<Map.Entry<String, JsonNode>> it = value.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            JsonNode property = properties.get(field.getKey());
            if (property != null) {
                if (property.path("readOnly").asBoolean(false)) {
                    problems.add(prefix + field.getKey() + ": is read-only");
                } else {
                    check(field.getValue(), property, prefix + field.getKey(), problems);
                }
            } else if (additional != null && additional.isBoolean() && !additional.asBoolean()) {
                problems.add(prefix + field.getKey() + ": is not a field of this definition");
            } else if (additional != null && additional.isObject()) {
                check(field.getValue(), additional, prefix + field.getKey(), problems);
            }
        }
    }

    private void collect(JsonNode schema, Map<String, JsonNode> properties, Set<String> required) {
        schema = resolve(schema);
        for (JsonNode parent : schema.path("allOf")) {
            collect(parent, properties, required);
        }
        schema.path("properties").fields().forEachRemaining(e -> properties.put(e.getKey(), e.getValue()));
        schema.path("required").forEach(r -> required.add(r.asText()));
    }
}
