package nni.manager.internal.service;

import static org.junit.Assert.assertEquals;

import java.util.List;

import org.junit.Test;

/** NNI's {@code TrialJobInfo.hyperParameters}: one compact JSON text per parameter set, in the order given. */
public class TrialHyperParametersTest {

    @Test
    public void everyParameterSetOncePerIndexAsCompactJson() {
        String first = "{\"parameter_id\": 0, \"parameter_source\": \"algorithm\", \"parameters\": {\"x\": 1}, \"parameter_index\": 0}";
        String second = "{\"parameter_id\": 4, \"parameter_source\": \"algorithm\", \"parameters\": {\"x\": 2}, \"parameter_index\": 1,"
                + " \"trial_job_id\": \"AbCd1\"}";
        String secondAgain = second.replace("\"x\": 2", "\"x\": 3");
        assertEquals(List.of("{\"parameter_id\":0,\"parameter_source\":\"algorithm\",\"parameters\":{\"x\":1},\"parameter_index\":0}",
                "{\"parameter_id\":4,\"parameter_source\":\"algorithm\",\"parameters\":{\"x\":2},\"parameter_index\":1,"
                        + "\"trial_job_id\":\"AbCd1\"}"),
                ExperimentViews.hyperParameters(first, List.of(second, secondAgain)));
    }

    @Test
    public void aTrialWithoutParametersHasAnEmptyList() {
        assertEquals(List.of(), ExperimentViews.hyperParameters(null, List.of()));
    }

    @Test
    public void aCustomizedTrialWithoutAnIndexCountsAsTheFirstSet() {
        String customized = "{\"parameter_id\": null, \"parameter_source\": \"customized\", \"parameters\": {\"x\": 1}}";
        assertEquals(List.of("{\"parameter_id\":null,\"parameter_source\":\"customized\",\"parameters\":{\"x\":1}}"),
                ExperimentViews.hyperParameters(customized, List.of()));
    }
}
