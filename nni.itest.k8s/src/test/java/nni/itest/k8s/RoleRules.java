package nni.itest.k8s;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.yaml.snakeyaml.Yaml;

/**
 * A Role's rules, as the API server's RBAC authorizer reads them: a request is allowed when one rule
 * names its API group, resource and verb (or {@code *}), in the Role's namespace, and, when the rule
 * has {@code resourceNames}, the object's name among them. The Roles are the
 * README's ({@code src/test/resources/rbac}, checked to be there verbatim by {@link RbacDocsTest}).
 */
public final class RoleRules {

    /** {@code /api/v1/namespaces/<ns>/<resource>[/<name>]} or {@code /apis/<group>/<version>/namespaces/...} */
    private static final Pattern NAMESPACED = Pattern.compile("/(?:api/v1|apis/([^/]+)/[^/]+)/namespaces/([^/]+)/([^/]+)(/[^/]+)?(/[^/]+)?");

    /** @param names the rule's {@code resourceNames}, or null: every object */
    private record Rule(List<String> groups, List<String> resources, List<String> names, List<String> verbs) {
    }

    private final String namespace;
    private final List<Rule> rules = new ArrayList<>();

    private RoleRules(String namespace) {
        this.namespace = namespace;
    }

    /** @return the rules of the Roles in the class-path resources {@code rbac/<file>}, all bound to the user, in one namespace */
    @SuppressWarnings("unchecked")
    public static RoleRules of(String... files) {
        RoleRules role = null;
        for (String file : files) {
            boolean found = false;
            for (Object document : new Yaml().loadAll(resource(file))) {
                Map<String, Object> object = (Map<String, Object>) document;
                if ("Role".equals(object.get("kind"))) {
                    String namespace = (String) ((Map<String, Object>) object.get("metadata")).get("namespace");
                    if (role == null) {
                        role = new RoleRules(namespace);
                    } else if (!role.namespace.equals(namespace)) {
                        throw new IllegalArgumentException("rbac/" + file + ": namespace " + namespace + ", not " + role.namespace);
                    }
                    for (Map<String, Object> rule : (List<Map<String, Object>>) object.get("rules")) {
                        role.rules.add(new Rule((List<String>) rule.get("apiGroups"), (List<String>) rule.get("resources"),
                                (List<String>) rule.get("resourceNames"), (List<String>) rule.get("verbs")));
                    }
                    found = true;
                }
            }
            if (!found) {
                throw new IllegalArgumentException("rbac/" + file + " has no Role");
            }
        }
        if (role == null) {
            throw new IllegalArgumentException("no Role file given");
        }
        return role;
    }

    /** @return the text of the class-path resource {@code rbac/<file>} */
    public static String resource(String file) {
        try (InputStream in = RoleRules.class.getResourceAsStream("/rbac/" + file)) {
            if (in == null) {
                throw new IllegalArgumentException("no resource rbac/" + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** @param name the object's name, or null or empty for a collection (which no rule with {@code resourceNames} allows) */
    public boolean allows(String namespace, String group, String resource, String name, String verb) {
        if (!this.namespace.equals(namespace)) {
            return false;
        }
        return rules.stream().anyMatch(r -> matches(r.groups(), group) && matches(r.resources(), resource) && matches(r.verbs(), verb)
                && (r.names() == null || name != null && r.names().contains(name)));
    }

    private static boolean matches(List<String> allowed, String value) {
        return allowed.contains("*") || allowed.contains(value);
    }

    /**
     * @return whether the rules allow the request, its verb read as the API server reads it (a GET of
     *         a collection is {@code list}, or {@code watch} with {@code watch=true}; a DELETE of one
     *         is {@code deletecollection}); requests outside a namespace are not allowed
     */
    public boolean allows(String method, String path) {
        URI uri = URI.create(path);
        Matcher m = NAMESPACED.matcher(uri.getPath());
        if (!m.matches()) {
            return false;
        }
        boolean named = m.group(4) != null;
        boolean watch = uri.getQuery() != null && uri.getQuery().contains("watch=true");
        String verb = switch (method) {
            case "GET" -> named ? "get" : watch ? "watch" : "list";
            case "POST" -> "create";
            case "PUT" -> "update";
            case "PATCH" -> "patch";
            case "DELETE" -> named ? "delete" : "deletecollection";
            default -> method.toLowerCase();
        };
        String resource = m.group(3) + (m.group(5) == null ? "" : m.group(5)); // pods/status
        return allows(m.group(2), m.group(1) == null ? "" : m.group(1), resource, named ? m.group(4).substring(1) : null, verb);
    }
}
