package nni.itest;

import static org.awaitility.Awaitility.await;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.bundle;
import static org.ops4j.pax.exam.CoreOptions.frameworkProperty;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.wiring.FrameworkWiring;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * Issue 27: the keeper protocol and reuse sessions (bundle {@code nni.keeper}) can be updated while
 * a reuse experiment runs. The local platform lets go of its sessions when the keeper bundle goes
 * (the experiment keeps its trials RUNNING and waits) and is back with the new one; the experiment
 * re-attaches the same keepers, the trials run on without being started again, and what they
 * report after the update (metrics, their ends) arrives, each once.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class KeeperBundleUpdateIT extends RuntimeTestSupport {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final ObjectMapper JSON = new ObjectMapper();

    @Configuration
    public Option[] config() throws Exception {
        Path root = scratch("keeper-update-it");
        return new Option[] {baseOptions(), bundle(reactorBundle("nni.tuners")),
                frameworkProperty("nni.experiments.dir").value(root.resolve("experiments").toString()),
                frameworkProperty("nni.it.root").value(root.toString())};
    }

    private JsonNode api(String path) throws Exception {
        HttpResponse<String> response = get(path);
        assertEquals(path + ": " + response.body(), 200, response.statusCode());
        return JSON.readTree(response.body());
    }

    private List<String> trials(String id, String status) throws Exception {
        List<String> ids = new ArrayList<>();
        api("api/v1/nni/trial-jobs?status=" + status + "&experiment_id=" + id).forEach(job -> ids.add(job.get("trialJobId").asText()));
        return ids.stream().sorted().toList();
    }

    private List<String> metricTypes(String id, String trial) throws Exception {
        List<String> types = new ArrayList<>();
        api("api/v1/nni/metric-data/" + trial + "?experiment_id=" + id).forEach(metric -> types.add(metric.get("type").asText()));
        return types;
    }

    @Test(timeout = 420_000)
    public void updatingTheKeeperBundleLeavesAReuseExperimentRunning() throws Exception {
        Path code = codeFolder();
        Path marks = Files.createDirectories(code.getParent().resolve("marks"));
        // each start of a trial adds a line to started-<id>; the trial reports a metric, waits
        // (bounded) for release-<id>, then reports its final result
        Path config = localExperiment(code, """
                marks='%s'
                echo started >> "$marks/started-$NNI_TRIAL_JOB_ID"
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "PERIODICAL", "sequence": 0, "value": "1"}'
                echo "NNISDK_MEb'$m'"
                for i in $(seq 3000); do [ -e "$marks/release-$NNI_TRIAL_JOB_ID" ] && break; sleep 0.1; done
                [ -e "$marks/release-$NNI_TRIAL_JOB_ID" ] || exit 3
                m='{"parameter_id": 0, "trial_job_id": "'$NNI_TRIAL_JOB_ID'", "type": "FINAL", "sequence": 0, "value": "2"}'
                echo "NNISDK_MEb'$m'"
                """.formatted(marks), "x: {_type: choice, _value: [1, 2]}", 2, "GridSearch", "reuseMode: true");
        String created = (String) command("nni:create " + config);
        assertTrue(created, created.matches("experiment \\w{8} \\w+ in .*"));
        String id = created.split(" ")[1];
        await().atMost(WAIT).until(() -> trials(id, "RUNNING").size() == 2);
        List<String> running = trials(id, "RUNNING");
        // both trials run and their first metric is stored before the keeper bundle goes
        for (String trial : running) {
            await().atMost(WAIT).until(() -> metricTypes(id, trial).equals(List.of("PERIODICAL")));
        }

        Bundle keeper = Arrays.stream(context.getBundles()).filter(b -> "nni.keeper".equals(b.getSymbolicName()))
                .findFirst().orElseThrow();
        keeper.update();
        CountDownLatch refreshed = new CountDownLatch(1);
        context.getBundle(0).adapt(FrameworkWiring.class).refreshBundles(List.of(keeper), event -> {
            if (event.getType() == FrameworkEvent.PACKAGES_REFRESHED) {
                refreshed.countDown();
            }
        });
        assertTrue("the framework refreshed nni.keeper", refreshed.await(WAIT.toSeconds(), TimeUnit.SECONDS));
        assertEquals(Bundle.ACTIVE, keeper.getState());

        for (String trial : running) {
            Files.writeString(marks.resolve("release-" + trial), "go");
        }
        await().atMost(WAIT).until(() -> trials(id, "SUCCEEDED").size() == 2);
        assertEquals("the trials that ran before the update succeeded", running, trials(id, "SUCCEEDED"));
        assertEquals("no other trial was made", 2, api("api/v1/nni/trial-jobs?experiment_id=" + id).size());
        for (String trial : running) {
            assertEquals("trial " + trial + " started once", List.of("started"), Files.readAllLines(marks.resolve("started-" + trial)));
            assertEquals("trial " + trial + "'s metrics, each once", List.of("PERIODICAL", "FINAL"), metricTypes(id, trial));
        }
        assertEquals("experiment " + id + " stopped", command("nni:halt " + id));
    }
}
