package nni.ts.k8s;

import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

/**
 * One custom resource an operator defines ({@code TFJob} of {@code kubeflow.org/v1}), as NNI's
 * platforms create it: namespaced, known to the cluster through its CRD.
 *
 * @param group   the API group ({@code kubeflow.org})
 * @param version the version the experiment asks for ({@code v1})
 * @param kind    the kind ({@code TFJob})
 * @param plural  the resource name in URLs ({@code tfjobs})
 * @param installHint what the user installs to have it ("the Kubeflow training operator")
 */
public record CustomResourceType(String group, String version, String kind, String plural, String installHint) {

    /** @return {@code group/version}, the objects' {@code apiVersion} */
    public String apiVersion() {
        return group + "/" + version;
    }

    /** @return the CRD's name, {@code plural.group} */
    public String crdName() {
        return plural + "." + group;
    }

    ResourceDefinitionContext context() {
        return new ResourceDefinitionContext.Builder().withGroup(group).withVersion(version).withKind(kind)
                .withPlural(plural).withNamespaced(true).build();
    }

    @Override
    public String toString() {
        return kind + " (" + crdName() + ", " + version + ")";
    }
}
