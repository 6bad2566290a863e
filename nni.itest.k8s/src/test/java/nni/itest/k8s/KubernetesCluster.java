package nni.itest.k8s;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;

import nni.itest.k8s.emulator.OperatorEmulator;
import nni.itest.launcher.RuntimeProcess;
import nni.store.ExperimentStore;
import nni.store.MetricRecord;
import nni.store.TrialRecord;

/**
 * What the Kubernetes tests share: the operators' CRDs, the trial they run, the folders (all below
 * {@code target/}), and the checks on what an experiment left in the store and in the cluster.
 */
final class KubernetesCluster {

    static final CrdSchema TFJOBS = CrdSchema.load("/crds/kubeflow.org_tfjobs.yaml", "v1");
    static final CrdSchema PYTORCHJOBS = CrdSchema.load("/crds/kubeflow.org_pytorchjobs.yaml", "v1");
    static final CrdSchema FRAMEWORKS = CrdSchema.load("/crds/frameworks.frameworkcontroller.microsoft.com.yaml", "v1");
    static final CrdSchema ADAPTDLJOBS = CrdSchema.load("/crds/adaptdl-crd.yaml", "v1");

    /** PERIODICAL metrics each normal trial reports before its FINAL one. */
    static final int STEPS = 3;

    private KubernetesCluster() {
    }

    static ResourceDefinitionContext context(CrdSchema crd) {
        return new ResourceDefinitionContext.Builder().withGroup(crd.group()).withVersion(crd.version()).withKind(crd.kind())
                .withPlural(crd.plural()).withNamespaced(true).build();
    }

    /** @return a fresh folder below this module's {@code target/} */
    static Path freshFolder(String name) throws IOException {
        Path folder = Path.of(System.getProperty("nni.root"), "nni.itest.k8s", "target", name).toAbsolutePath().normalize();
        if (Files.exists(folder)) {
            try (Stream<Path> all = Files.walk(folder)) {
                for (Path path : all.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(path);
                }
            }
        }
        return Files.createDirectories(folder);
    }

    /**
     * The trial (bash, NNI's stdout metric protocol): appends {@code <trial> <hostname>} to
     * {@code ran}, reports {@link #STEPS} PERIODICAL metrics, then by its parameter {@code x}: below
     * 100 a FINAL metric and exit 0; 100-199 writes its pid to {@code signals/<x>.pid} and waits for
     * {@code signals/<x>.release} (at most 2 minutes) first; 200-299 exits 1 after its metrics; 300 and
     * above waits (at most 2 minutes) until another role's {@code follower.sh} has run for it, as a
     * distributed trial waits for its peers.
     * {@code follower.sh} is another role's command: it records the parameters it found.
     * {@code trial.py} is a normal trial written with NNI's Python SDK.
     */
    static Path trialCode(Path folder) throws IOException {
        Path signals = Files.createDirectories(folder.resolve("signals"));
        Files.writeString(folder.resolve("trial.sh"), String.join("\n",
                "#!/bin/bash",
                "cfg=\"$NNI_SYS_DIR/parameter.cfg\"",
                "id=$(sed -n 's/.*\"parameter_id\": *\\([0-9]*\\).*/\\1/p' \"$cfg\")",
                "x=$(sed -n 's/.*\"x\": *\\([0-9]*\\).*/\\1/p' \"$cfg\")",
                "echo \"$NNI_TRIAL_JOB_ID ${HOSTNAME:-?} $NNI_PLATFORM\" >> " + folder.resolve("ran"),
                "m() { echo \"NNISDK_MEb'{\\\"parameter_id\\\": $id, \\\"trial_job_id\\\": \\\"$NNI_TRIAL_JOB_ID\\\", \\\"type\\\": \\\"$1\\\","
                        + " \\\"sequence\\\": $2, \\\"value\\\": \\\"$3\\\"}'\"; }",
                "for s in $(seq 0 " + (STEPS - 1) + "); do m PERIODICAL $s 0.$s; done",
                "if [ \"$x\" -ge 100 ] && [ \"$x\" -lt 200 ]; then",
                "  echo $$ > " + signals + "/$x.pid",
                "  n=0; while [ ! -e " + signals + "/$x.release ] && [ $n -lt 1200 ]; do sleep 0.1; n=$((n+1)); done",
                "fi",
                "if [ \"$x\" -ge 300 ]; then",
                "  n=0; while ! grep -q \"^$NNI_TRIAL_JOB_ID \" " + folder.resolve("followers") + " 2>/dev/null && [ $n -lt 1200 ]; do sleep 0.1; n=$((n+1)); done",
                "elif [ \"$x\" -ge 200 ]; then echo 'the trial fails' >&2; exit 1; fi",
                "m FINAL 0 0.$x",
                ""));
        // the same with NNI's Python SDK, as NNI's examples report: the image's Python has no nni, the shipped one is used
        Files.writeString(folder.resolve("trial.py"), String.join("\n",
                "import os, nni",
                "x = nni.get_next_parameter()['x']",
                "with open(" + pythonString(folder.resolve("ran")) + ", 'a') as ran:",
                "    ran.write('%s %s %s python\\n' % (nni.get_trial_id(), os.environ.get('HOSTNAME', '?'), os.environ['NNI_PLATFORM']))",
                "for step in range(" + STEPS + "):",
                "    nni.report_intermediate_result(step / 10)",
                "nni.report_final_result(x / 1000)",
                ""));
        Files.writeString(folder.resolve("follower.sh"), String.join("\n",
                "#!/bin/bash",
                "echo \"$NNI_TRIAL_JOB_ID ${HOSTNAME:-?} $(cat \"$NNI_SYS_DIR/parameter.cfg\")\" >> " + folder.resolve("followers"),
                ""));
        return folder;
    }

    private static String pythonString(Path path) {
        return "'" + path.toString().replace("\\", "\\\\").replace("'", "\\'") + "'";
    }

    /** Every trial SUCCEEDED with its metrics stored exactly once; @return the trials */
    static List<TrialRecord> assertEverySucceededWithItsMetricsOnce(Path experimentDirectory, int trials) throws Exception {
        try (ExperimentStore store = ExperimentStore.openReadOnly(experimentDirectory)) {
            List<TrialRecord> records = store.trials();
            assertEquals(records.toString(), trials, records.size());
            for (TrialRecord trial : records) {
                assertEquals(trial.id() + " " + trial.status(), "SUCCEEDED", trial.status());
                assertMetricsOnce(store, trial.id(), STEPS, 1);
            }
            return records;
        }
    }

    static void assertMetricsOnce(ExperimentStore store, String trialId, int periodical, int finals) {
        List<MetricRecord> steps = store.metrics(trialId, "PERIODICAL");
        assertEquals(trialId + ": " + steps, periodical, steps.size());
        assertEquals(trialId + ": " + steps, periodical, steps.stream().map(MetricRecord::sequence).distinct().count());
        assertEquals(trialId, finals, store.metrics(trialId, "FINAL").size());
    }

    /** @return the experiment's objects of a kind, by its {@code expId} label */
    static List<GenericKubernetesResource> objects(KubernetesClient client, CrdSchema crd, String experimentId) {
        return client.genericKubernetesResources(context(crd)).inNamespace("default").withLabel("expId", experimentId).list().getItems();
    }

    /** Waits until nothing of the experiment is left: its jobs, their pods, Secrets, ConfigMaps and PVCs. */
    static void awaitNothingLeft(KubernetesClient client, CrdSchema crd, String experimentId) {
        await().atMost(Duration.ofSeconds(60)).until(() -> objects(client, crd, experimentId).isEmpty()
                && client.pods().inNamespace("default").withLabel("expId", experimentId).list().getItems().isEmpty()
                && client.secrets().inNamespace("default").withLabel("expId", experimentId).list().getItems().isEmpty()
                && client.configMaps().inNamespace("default").withLabel("expId", experimentId).list().getItems().isEmpty()
                && client.persistentVolumeClaims().inNamespace("default").withLabel("expId", experimentId).list().getItems().isEmpty());
    }

    /** The emulator met nothing it could not do, and no object was refused by its schema. */
    static void assertClean(MockCluster cluster, OperatorEmulator emulator) {
        assertEquals(List.of(), emulator.failures());
        assertEquals(List.of(), cluster.violations());
    }

    /** Labels NNI puts on every object of an environment. */
    static void assertNniLabels(GenericKubernetesResource job, String experimentId, String idLabel) {
        Map<String, String> labels = job.getMetadata().getLabels();
        assertEquals("nni-kubernetes-trial", labels.get("app"));
        assertEquals(experimentId, labels.get("expId"));
        assertTrue(labels.toString(), labels.containsKey(idLabel));
    }

    /** @return the folders directly in {@code folder} (experiments in the experiments folder); empty while it does not exist */
    static List<Path> subfolders(Path folder) throws IOException {
        if (!Files.isDirectory(folder)) {
            return List.of();
        }
        try (Stream<Path> list = Files.list(folder)) {
            // not the hidden folder an experiment is staged in while it is being created (CreationMarker)
            return list.filter(Files::isDirectory).filter(path -> !path.getFileName().toString().startsWith(".")).toList();
        }
    }

    /** @return the experiment's status as the runtime's REST API gives it, or "not open" while nni:create is still opening it */
    static String status(RuntimeProcess runtime, String id) throws Exception {
        java.net.http.HttpResponse<String> response = runtime.request("GET", "check-status?experiment_id=" + id, null);
        return response.statusCode() == 404 ? "not open" : RuntimeProcess.JSON.readTree(response.body()).path("status").asText();
    }
}
