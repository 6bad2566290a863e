package nni.ts.k8s;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReview;
import io.fabric8.kubernetes.api.model.authorization.v1.SelfSubjectAccessReviewBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a session does in its namespace, as RBAC verbs on resources, and the check of each with a
 * SelfSubjectAccessReview ({@code authorization.k8s.io/v1}) before anything is created: a user
 * without a right learns it at {@code open}, named, not from the first trial that fails.
 */
public final class AccessReview {

    private static final Logger LOG = LoggerFactory.getLogger(AccessReview.class);

    /** Verbs on one resource of an API group ({@code ""}: the core group), on the object {@code name} only when not null. */
    public record Rule(String group, String resource, String name, List<String> verbs) {

        public Rule(String group, String resource, List<String> verbs) {
            this(group, resource, null, verbs);
        }
    }

    private AccessReview() {
    }

    /**
     * @param type    the operator's jobs
     * @param secrets     whether the session creates Secrets (the keeper's token, an Azure file share's key)
     * @param tokenSecret the Secret whose keys hold the keepers' tokens ({@code keeper.token.secret}), or null
     * @return the rules the launcher and the watch use: the jobs (created, watched, deleted one by one
     *         and by label selector), the pods (watched, listed when a job fails) and the Secrets
     */
    public static List<Rule> needed(CustomResourceType type, boolean secrets, String tokenSecret) {
        List<Rule> rules = new ArrayList<>();
        rules.add(new Rule(type.group(), type.plural(), List.of("create", "get", "list", "watch", "delete", "deletecollection")));
        rules.add(new Rule("", "pods", List.of("get", "list", "watch")));
        if (secrets) {
            rules.add(new Rule("", "secrets", List.of("create", "delete", "deletecollection")));
        }
        if (tokenSecret != null) {
            rules.add(new Rule("", "secrets", tokenSecret, List.of("get", "patch")));
        }
        return rules;
    }

    /**
     * @return the verbs the user may not use, by resource ({@code secrets}, {@code tfjobs.kubeflow.org}), in
     *         the order of {@code rules}; empty when everything is allowed or the cluster cannot say (no
     *         SelfSubjectAccessReview served, or the user may not create one: the first request that is
     *         refused will say it then)
     */
    public static Map<String, List<String>> missing(KubernetesClient client, String namespace, List<Rule> rules) {
        Map<String, List<String>> missing = new LinkedHashMap<>();
        for (Rule rule : rules) {
            for (String verb : rule.verbs()) {
                SelfSubjectAccessReview review = new SelfSubjectAccessReviewBuilder().withNewSpec().withNewResourceAttributes()
                        .withNamespace(namespace).withGroup(rule.group()).withResource(rule.resource()).withName(rule.name()).withVerb(verb)
                        .endResourceAttributes().endSpec().build();
                SelfSubjectAccessReview answer;
                try {
                    answer = client.authorization().v1().selfSubjectAccessReview().create(review);
                } catch (KubernetesClientException e) {
                    LOG.info("cannot review the user's rights in namespace {}: {}; not checked", namespace, Messages.of(e));
                    return Map.of();
                }
                if (answer.getStatus() == null || !Boolean.TRUE.equals(answer.getStatus().getAllowed())) {
                    String resource = (rule.group().isEmpty() ? rule.resource() : rule.resource() + "." + rule.group())
                            + (rule.name() == null ? "" : " '" + rule.name() + "'");
                    missing.computeIfAbsent(resource, r -> new ArrayList<>()).add(verb);
                }
            }
        }
        return missing;
    }
}
