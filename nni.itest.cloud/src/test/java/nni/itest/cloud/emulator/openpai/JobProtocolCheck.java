package nni.itest.cloud.emulator.openpai;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi30;

/**
 * What OpenPAI checks of a submitted job: first the published job protocol
 * ({@code openpai/schema.yaml}, {@code #/components/schemas/JobProtocol}, an OpenAPI 3.0 schema),
 * then the REST server's own, stricter rules: the Ajv schema of {@code config/v2/protocol.js} (no
 * unknown keys, task role names as C identifiers, {@code cpu}, {@code memoryMB} and {@code gpu}
 * required per instance, at least one command) and the checks of {@code middlewares/v2/protocol.js}
 * (no duplicate prerequisite, a task role's {@code dockerImage}/{@code data}/{@code output}/
 * {@code script} naming a prerequisite of that type, the default deployment existing).
 */
public final class JobProtocolCheck {

    private static final String ROLE_NAME = "^[a-zA-Z_][a-zA-Z0-9_]*$";
    private static final Set<String> JOB_KEYS = Set.of("protocolVersion", "name", "type", "version", "contributor",
            "description", "prerequisites", "parameters", "secrets", "jobRetryCount", "taskRoles", "deployments", "defaults",
            "extras");
    private static final Set<String> ROLE_KEYS = Set.of("protocolVersion", "instances", "completion", "taskRetryCount",
            "dockerImage", "data", "output", "script", "extraContainerOptions", "resourcePerInstance", "commands");
    private static final Set<String> PREREQUISITE_KEYS = Set.of("protocolVersion", "name", "version", "contributor",
            "description", "type", "uri");
    private static final Map<String, String> PREREQUISITE_FIELDS = Map.of("dockerImage", "dockerimage", "data", "data",
            "output", "output", "script", "script");

    private final JsonSchema schema;

    public JobProtocolCheck() {
        JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V4,
                builder -> builder.metaSchema(OpenApi30.getInstance()).defaultMetaSchemaIri(OpenApi30.getInstance().getIri()));
        schema = factory.getSchema(SchemaLocation.of("classpath:openpai/schema.yaml#/components/schemas/JobProtocol"));
    }

    /** @return every problem of the job (empty when OpenPAI would accept it) */
    public List<String> problems(JsonNode job) {
        List<String> problems = new ArrayList<>();
        for (ValidationMessage message : schema.validate(job)) {
            problems.add("schema: " + message.getMessage());
        }
        restServerRules(job, problems);
        return problems;
    }

    private static void restServerRules(JsonNode job, List<String> problems) {
        if (!job.isObject()) {
            problems.add("the job is not a mapping");
            return;
        }
        unknownKeys(job, JOB_KEYS, "", problems);
        for (String required : List.of("protocolVersion", "name", "type", "taskRoles")) {
            if (!job.has(required)) {
                problems.add(required + " is required");
            }
        }
        if (job.has("jobRetryCount") && !(job.get("jobRetryCount").isIntegralNumber() && job.get("jobRetryCount").asInt() >= 0)) {
            problems.add("jobRetryCount: expected a whole number >= 0");
        }
        Set<String> prerequisites = new HashSet<>();
        for (JsonNode item : job.path("prerequisites")) {
            String type = item.path("type").asText();
            Set<String> allowed = new HashSet<>(PREREQUISITE_KEYS);
            if (type.equals("dockerimage")) {
                allowed.add("auth");
            }
            unknownKeys(item, allowed, "prerequisites[" + item.path("name").asText() + "].", problems);
            for (String required : List.of("name", "type", "uri")) {
                if (!item.has(required)) {
                    problems.add("prerequisites: " + required + " is required");
                }
            }
            if (!prerequisites.add(type + "/" + item.path("name").asText())) {
                problems.add("Duplicate " + type + " prerequisites " + item.path("name").asText() + ".");
            }
        }
        JsonNode roles = job.path("taskRoles");
        if (!roles.isObject() || roles.isEmpty()) {
            problems.add("taskRoles: expected at least one task role");
            return;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = roles.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> entry = it.next();
            String at = "taskRoles." + entry.getKey();
            if (!entry.getKey().matches(ROLE_NAME)) {
                problems.add(at + ": a task role's name must match " + ROLE_NAME);
            }
            role(at, entry.getValue(), prerequisites, problems);
        }
        String deployment = job.path("defaults").path("deployment").asText(null);
        if (deployment != null) {
            boolean exists = false;
            for (JsonNode item : job.path("deployments")) {
                exists |= deployment.equals(item.path("name").asText());
            }
            if (!exists) {
                problems.add("Default deployment " + deployment + " does not exist.");
            }
        }
    }

    private static void role(String at, JsonNode role, Set<String> prerequisites, List<String> problems) {
        if (!role.isObject()) {
            problems.add(at + ": expected a mapping");
            return;
        }
        unknownKeys(role, ROLE_KEYS, at + ".", problems);
        for (String required : List.of("dockerImage", "resourcePerInstance", "commands")) {
            if (!role.has(required)) {
                problems.add(at + "." + required + " is required");
            }
        }
        if (role.has("instances") && !(role.get("instances").isIntegralNumber() && role.get("instances").asInt() >= 1)) {
            problems.add(at + ".instances: expected a whole number >= 1");
        }
        JsonNode completion = role.path("completion");
        if (!completion.isMissingNode()) {
            unknownKeys(completion, Set.of("minFailedInstances", "minSucceededInstances"), at + ".completion.", problems);
            completion.fields().forEachRemaining(field -> {
                if (!field.getValue().isNull() && !field.getValue().isIntegralNumber()) {
                    problems.add(at + ".completion." + field.getKey() + ": expected a whole number or null");
                }
            });
        }
        if (role.has("taskRetryCount") && !role.get("taskRetryCount").isIntegralNumber()) {
            problems.add(at + ".taskRetryCount: expected a whole number");
        }
        JsonNode resources = role.path("resourcePerInstance");
        if (role.has("resourcePerInstance")) {
            unknownKeys(resources, Set.of("cpu", "memoryMB", "gpu", "ports"), at + ".resourcePerInstance.", problems);
            for (String required : List.of("cpu", "memoryMB", "gpu")) {
                if (!resources.path(required).isIntegralNumber()) {
                    problems.add(at + ".resourcePerInstance." + required + ": a whole number is required");
                }
            }
        }
        JsonNode commands = role.path("commands");
        if (role.has("commands") && (!commands.isArray() || commands.isEmpty())) {
            problems.add(at + ".commands: expected at least one command");
        }
        for (JsonNode command : commands) {
            if (!command.isTextual()) {
                problems.add(at + ".commands: expected strings, got " + command);
            }
        }
        for (Map.Entry<String, String> field : PREREQUISITE_FIELDS.entrySet()) {
            if (role.has(field.getKey()) && !prerequisites.contains(field.getValue() + "/" + role.get(field.getKey()).asText())) {
                problems.add(at + ": Prerequisite " + role.get(field.getKey()).asText() + " does not exist.");
            }
        }
    }

    private static void unknownKeys(JsonNode node, Set<String> allowed, String at, List<String> problems) {
        node.fieldNames().forEachRemaining(key -> {
            if (!allowed.contains(key)) {
                problems.add(at + key + ": not allowed (additionalProperties: false)");
            }
        });
    }
}
