package nni.web.internal.rest;

import static org.junit.Assert.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import nni.api.experiment.ExperimentProfile;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.PlatformView;
import nni.api.experiment.TrialDetail;
import nni.api.experiment.TrialInfo;
import nni.api.model.HyperParameters;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;

/**
 * The JSON NNI's clients read (nnictl, the Python client, the web UI), written from the API's
 * views: NNI's field names in NNI's order, times in epoch milliseconds, and the fields NNI leaves
 * out when it has nothing to say left out.
 */
public class RestShapesTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    private static final HyperParameters PARAMETERS = HyperParameters.of("{\"parameter_id\":4}", 0);
    private static final MetricInfo FINAL = MetricInfo.builder("AbCd1").type("FINAL").sequence(0)
            .timestamp(Instant.ofEpochMilli(1700000000123L)).data("\"0.93\"").parameterId("4").build();

    @Test
    public void aMetricIsNnisMetricDataRecord() throws Exception {
        assertEquals("{\"timestamp\":1700000000123,\"trialJobId\":\"AbCd1\",\"parameterId\":\"4\",\"type\":\"FINAL\","
                + "\"sequence\":0,\"data\":\"\\\"0.93\\\"\"}", JSON.writeValueAsString(ExperimentRoutes.metric(FINAL)));
        MetricInfo without = MetricInfo.builder("AbCd1").type("PERIODICAL").sequence(3)
                .timestamp(Instant.ofEpochMilli(5)).data("\"1\"").build();
        assertEquals("{\"timestamp\":5,\"trialJobId\":\"AbCd1\",\"parameterId\":null,\"type\":\"PERIODICAL\","
                + "\"sequence\":3,\"data\":\"\\\"1\\\"\"}", JSON.writeValueAsString(ExperimentRoutes.metric(without)));
    }

    @Test
    public void aSucceededTrialIsNnisTrialJobInfoWithWhereItRan() throws Exception {
        TrialJob job = TrialJob.builder("AbCd1").hyperParameters(PARAMETERS).sequenceId(7).status(TrialStatus.SUCCEEDED).host("gpu-3")
                .attributes(Map.of("node", "n1")).build();
        TrialDetail trial = TrialDetail.builder("AbCd1").sequenceId(7L).status("SUCCEEDED")
                .startTime(Instant.ofEpochMilli(1000)).endTime(Instant.ofEpochMilli(2000))
                .hyperParameters(List.of("{\"parameter_id\":4}")).logPath("file://localhost/e/trials/AbCd1")
                .finalMetrics(List.of(FINAL)).current(TrialInfo.builder("exp1", job).platform("local").build()).build();
        assertEquals("{\"trialJobId\":\"AbCd1\",\"sequenceId\":7,\"status\":\"SUCCEEDED\",\"platform\":\"local\","
                + "\"host\":\"gpu-3\",\"attributes\":{\"node\":\"n1\"},\"startTime\":1000,\"endTime\":2000,"
                + "\"hyperParameters\":[\"{\\\"parameter_id\\\":4}\"],\"logPath\":\"file://localhost/e/trials/AbCd1\","
                + "\"finalMetricData\":[" + JSON.writeValueAsString(ExperimentRoutes.metric(FINAL)) + "]}",
                JSON.writeValueAsString(ExperimentRoutes.trialInfo(trial)));
    }

    @Test
    public void aWaitingTrialNotPlacedYetSaysWhyAndHasNoPlaceNorTimesOfItsOwn() throws Exception {
        TrialJob job = TrialJob.builder("AbCd2").hyperParameters(PARAMETERS).sequenceId(8).status(TrialStatus.WAITING).build();
        TrialDetail trial = TrialDetail.builder("AbCd2").sequenceId(8L).status("WAITING").message("waiting: needs 1 GPU")
                .logPath("file://localhost/e/trials/AbCd2").current(TrialInfo.builder("exp1", job).build()).build();
        assertEquals("{\"trialJobId\":\"AbCd2\",\"sequenceId\":8,\"status\":\"WAITING\",\"message\":\"waiting: needs 1 GPU\","
                + "\"platform\":null,\"startTime\":null,\"endTime\":null,\"hyperParameters\":[],"
                + "\"logPath\":\"file://localhost/e/trials/AbCd2\"}", JSON.writeValueAsString(ExperimentRoutes.trialInfo(trial)));
    }

    @Test
    public void aFailedTrialOnlyStoredNamesItsStderrAndNoFinalMetrics() throws Exception {
        TrialDetail trial = TrialDetail.builder("AbCd3").status("FAILED").message("")
                .logPath("file://localhost/e/trials/AbCd3").finalMetrics(List.of(FINAL)).build();
        assertEquals("{\"trialJobId\":\"AbCd3\",\"sequenceId\":null,\"status\":\"FAILED\",\"startTime\":null,"
                + "\"endTime\":null,\"hyperParameters\":[],\"logPath\":\"file://localhost/e/trials/AbCd3\","
                + "\"stderrPath\":\"file://localhost/e/trials/AbCd3/stderr\"}",
                JSON.writeValueAsString(ExperimentRoutes.trialInfo(trial)));
    }

    @Test
    public void theProfileIsNnisExperimentProfileInWholeSeconds() throws Exception {
        Map<String, Object> params = new LinkedHashMap<>();
        params.put("trialConcurrency", 2);
        params.put("searchSpace", Map.of("x", List.of(1, 2)));
        ExperimentProfile running = ExperimentProfile.builder("exp1").params(params).execDuration(Duration.ofMillis(61_999))
                .logDir(Path.of("/e/exp1")).startTime(Instant.ofEpochMilli(1000)).nextSequenceId(3).revision(2).build();
        assertEquals("{\"params\":{\"trialConcurrency\":2,\"searchSpace\":{\"x\":[1,2]}},"
                + "\"id\":\"exp1\",\"execDuration\":61,\"logDir\":\"/e/exp1\",\"startTime\":1000,\"nextSequenceId\":3,"
                + "\"revision\":2}", JSON.writeValueAsString(ExperimentRoutes.profile(running)));
        ExperimentProfile ended = ExperimentProfile.builder("exp1").params(Map.of()).logDir(Path.of("/e/exp1"))
                .startTime(Instant.ofEpochMilli(1000)).endTime(Instant.ofEpochMilli(9000)).build();
        assertEquals("{\"params\":{},\"id\":\"exp1\",\"execDuration\":0,\"logDir\":\"/e/exp1\",\"startTime\":1000,"
                + "\"endTime\":9000,\"nextSequenceId\":0,\"revision\":0}", JSON.writeValueAsString(ExperimentRoutes.profile(ended)));
    }

    @Test
    public void aPlatformIsItsNameBundleStateSessionsAndHowEachReports() throws Exception {
        PlatformView kubeflow = PlatformView.builder("kubeflow").bundle("nni.ts.kubeflow").version("1.0.0").state(PlatformView.SHADOWED)
                .sessions(2).runsTrials(false)
                .reports(List.of(PlatformView.SessionReports.of("exp00001", nni.api.platform.ReportChannel.of("files", "the trial's folder is shared")))).build();
        assertEquals("{\"name\":\"kubeflow\",\"bundle\":\"nni.ts.kubeflow\",\"version\":\"1.0.0\",\"state\":\"shadowed\","
                + "\"sessions\":2,\"runsTrials\":false,\"reports\":[{\"experiment\":\"exp00001\",\"transport\":\"files\","
                + "\"why\":\"the trial's folder is shared\"}]}", JSON.writeValueAsString(NniApiServlet.platform(kubeflow)));
    }
}
