package nni.tuners.internal;

import static nni.tuners.internal.Spaces.json;
import static nni.tuners.internal.Spaces.list;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.Test;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.model.TrialStatus;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Assessor;
import nni.api.tuner.PastTrial;
import nni.api.tuner.Tuner;

/** A Java tuner and assessor as a dispatcher: what the manager's JavaAlgorithm did, now through the protocol. */
public class JavaAlgorithmRunTest {

    private static final Map<String, Object> SPACE = json("x", "choice", list(1, 2, 3));

    /** Gives x = 0, 1, 2, ... up to a limit (then nothing more) and records every call, in order. */
    static class ScriptedTuner implements Tuner {
        final List<String> calls = new ArrayList<>();
        private final int limit;
        private int drawn;
        boolean importing = true;

        ScriptedTuner(int limit) {
            this.limit = limit;
        }

        @Override
        public Optional<Map<String, Object>> generateParameters(long parameterId) {
            calls.add("generate " + parameterId);
            return drawn < limit ? Optional.of(Map.of("x", drawn++)) : Optional.empty();
        }

        @Override
        public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
            calls.add("result " + parameterId + " " + parameters + " " + value);
        }

        @Override
        public void trialEnd(long parameterId, boolean succeeded) {
            calls.add("end " + parameterId + " " + succeeded);
        }

        @Override
        public boolean importResult(Map<String, Object> parameters, double value) {
            calls.add("import " + parameters + " " + value);
            return importing;
        }
    }

    private static RecordingContext context() {
        return new RecordingContext(SPACE, AlgorithmSection.builder().name("Scripted").build(), List.of());
    }

    private static String metric(String trialId, Object parameterId, String type, String value) {
        return "{\"parameter_id\":" + parameterId + ",\"trial_job_id\":\"" + trialId + "\",\"type\":\"" + type
                + "\",\"sequence\":0,\"value\":\"" + value + "\"}";
    }

    @Test
    public void trialsAreAnsweredAtOnceWithIdsFromZeroAndAnExhaustedTunerSaysSoForGood() {
        RecordingContext context = context();
        JavaAlgorithmRun run = new JavaAlgorithmRun(context, new ScriptedTuner(2), null);
        run.requestTrials(3);
        List<JsonNode> trials = context.takeTrials();
        assertEquals(2, trials.size());
        assertEquals(0, trials.get(0).get("parameter_id").asLong());
        assertEquals("algorithm", trials.get(0).get("parameter_source").asText());
        assertEquals(0, trials.get(0).get("parameter_index").asInt());
        assertEquals(1, trials.get(1).get("parameter_id").asLong());
        assertEquals(1, trials.get(1).get("parameters").get("x").asInt());
        assertEquals(List.of("EXHAUSTED"), context.answers);
        assertFalse("no assessor: intermediate results are not wanted", run.wantsIntermediateResults());
    }

    @Test
    public void finalResultsReachTheTunerWithTheirParametersAndEndsAfterThem() {
        RecordingContext context = context();
        ScriptedTuner tuner = new ScriptedTuner(5);
        JavaAlgorithmRun run = new JavaAlgorithmRun(context, tuner, null);
        run.requestTrials(1);
        String packed = context.answers.get(0).substring(3);
        run.reportMetric(metric("trial1", 0, "FINAL", "0.75"));
        run.reportMetric(metric("trial1", 0, "FINAL", "{\\\"default\\\": 0.5, \\\"other\\\": 2}"));
        run.reportMetric(metric("trial1", 0, "FINAL", "not a number"));
        run.trialEnded("trial1", TrialStatus.SUCCEEDED, packed);
        assertEquals(List.of("generate 0", "result 0 {x=0} 0.75", "result 0 {x=0} 0.5", "end 0 true"), tuner.calls);
    }

    /** The manager gave the trial's parameters as read back from its JSON; so does the runner. */
    @Test
    public void aResultComesWithTheParametersAsTheTrialReadThem() {
        List<Object> given = new ArrayList<>();
        Tuner longs = new ScriptedTuner(1) {
            @Override
            public Optional<Map<String, Object>> generateParameters(long parameterId) {
                return Optional.of(Map.of("x", 3L));
            }

            @Override
            public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
                given.add(parameters.get("x"));
            }
        };
        JavaAlgorithmRun run = new JavaAlgorithmRun(context(), longs, null);
        run.requestTrials(1);
        run.reportMetric(metric("trial1", 0, "FINAL", "1"));
        assertEquals(List.of(Integer.valueOf(3)), given);
    }

    @Test
    public void aBadVerdictKillsTheTrialWithItsWholeHistoryJudged() {
        List<List<Double>> judged = new ArrayList<>();
        Assessor stopAtTwo = (trialId, history) -> {
            judged.add(history);
            return history.size() >= 2 ? Assessor.Verdict.BAD : Assessor.Verdict.GOOD;
        };
        RecordingContext context = context();
        JavaAlgorithmRun run = new JavaAlgorithmRun(context, new ScriptedTuner(5), stopAtTwo);
        assertTrue(run.wantsIntermediateResults());
        run.reportMetric(metric("trial1", 0, "PERIODICAL", "0.1"));
        run.reportMetric(metric("trial1", 0, "PERIODICAL", "0.2"));
        assertEquals(List.of(List.of(0.1), List.of(0.1, 0.2)), judged);
        assertEquals(List.of("KI trial1"), context.answers);
    }

    @Test
    public void aTunerThatThrowsFailsTheExperimentSayingWhatItWasDoing() {
        RecordingContext context = context();
        Tuner broken = new ScriptedTuner(5) {
            @Override
            public Optional<Map<String, Object>> generateParameters(long parameterId) {
                throw new IllegalStateException("boom");
            }
        };
        new JavaAlgorithmRun(context, broken, null).requestTrials(2);
        assertEquals(List.of("FAILED the tuner failed to generate parameters: boom"), context.answers);
    }

    @Test
    public void aRequestForParametersIsAnsweredWithANewIdForThatTrial() throws Exception {
        RecordingContext context = context();
        JavaAlgorithmRun run = new JavaAlgorithmRun(context, new ScriptedTuner(5), null);
        run.requestTrials(1);
        context.takeTrials();
        run.reportMetric("{\"trial_job_id\":\"trial1\",\"type\":\"REQUEST_PARAMETER\",\"parameter_index\":1}");
        run.reportMetric("{\"trial_job_id\":\"trial1\",\"type\":\"REQUEST_PARAMETER\"}");
        assertEquals(1, context.answers.size());
        JsonNode sent = RecordingContext.JSON.readTree(context.answers.get(0).substring(3));
        assertEquals(1, sent.get("parameter_id").asLong());
        assertEquals("trial1", sent.get("trial_job_id").asText());
        assertEquals(1, sent.get("parameter_index").asInt());
    }

    @Test
    public void importsAreRefusedWhenTheTunerDoesNotLearnFromThem() {
        RecordingContext context = context();
        ScriptedTuner tuner = new ScriptedTuner(5);
        tuner.importing = false;
        new JavaAlgorithmRun(context, tuner, null).importData("[{\"parameter\":{\"x\":1},\"value\":0.5},"
                + "{\"parameter\":{\"x\":2},\"value\":0.7}]");
        assertEquals(List.of("REFUSED the tuner Scripted does not learn from imported results; nothing was imported"),
                context.answers);
        assertEquals("only the first was offered", List.of("import {x=1} 0.5"), tuner.calls);
    }

    @Test
    public void importsAreGivenWholeWhenTheTunerLearnsFromThem() {
        RecordingContext context = context();
        ScriptedTuner tuner = new ScriptedTuner(5);
        new JavaAlgorithmRun(context, tuner, null).importData("[{\"parameter\":{\"x\":1},\"value\":0.5},"
                + "{\"parameter\":{\"x\":2},\"value\":\"{\\\"default\\\": 0.7}\"}]");
        assertEquals(List.of(), context.answers);
        assertEquals(List.of("import {x=1} 0.5", "import {x=2} 0.7"), tuner.calls);
    }

    @Test
    public void aSearchSpaceTheTunerCannotTakeIsRefusedNamingTheProblem() {
        RecordingContext context = context();
        JavaAlgorithmRun run = new JavaAlgorithmRun(context, new ScriptedTuner(5), null);
        run.updateSearchSpace(json("y", "choice", list(1, 2)));
        run.updateSearchSpace(Map.of("y", Map.of("_type", "nonsense", "_value", List.of())));
        assertEquals(2, context.answers.size());
        assertEquals("REFUSED this tuner cannot change its search space at run time", context.answers.get(0));
        assertTrue(context.answers.get(1), context.answers.get(1).startsWith("REFUSED searchSpace: "));
    }

    /** Issue 25: a resumed experiment's history goes into the new tuner, and what it tried is not tried again. */
    @Test
    public void onResumeTheHistoryIsReplayedAndTriedParametersArePassedOverOnce() {
        RecordingContext context = context();
        context.importedData.add("[{\"parameter\":{\"x\":9},\"value\":0.9}]");
        context.pastTrials.add(PastTrial.builder("done0001").parameterId(0L).parameters(Map.of("x", 0)).finalResult(0.3)
                .status(TrialStatus.SUCCEEDED).build());
        context.pastTrials.add(PastTrial.builder("fail0002").parameterId(1L).parameters(Map.of("x", 1))
                .status(TrialStatus.FAILED).build());
        context.pastTrials.add(PastTrial.builder("live0003").parameterId(4L).parameters(Map.of("x", 7))
                .intermediateResults(List.of(0.2)).status(TrialStatus.RUNNING).build());
        ScriptedTuner tuner = new ScriptedTuner(5);
        JavaAlgorithmRun run = new JavaAlgorithmRun(context, tuner, null);
        assertEquals(List.of("import {x=9} 0.9", "result 0 {x=0} 0.3", "end 0 true", "end 1 false"), tuner.calls);
        tuner.calls.clear();

        run.requestTrials(1);
        // the seeded tuner draws x=0 and x=1 again: each passed over (its id ended unused), then x=2 is new
        assertEquals(List.of("generate 5", "end 5 false", "generate 6", "end 6 false", "generate 7"), tuner.calls);
        List<JsonNode> trials = context.takeTrials();
        assertEquals(1, trials.size());
        assertEquals("ids continue after the resumed ones", 7, trials.get(0).get("parameter_id").asLong());
        assertEquals(2, trials.get(0).get("parameters").get("x").asInt());

        tuner.calls.clear();
        run.reportMetric(metric("live0003", 4, "FINAL", "0.8"));
        assertEquals("a continuing trial's result comes with its parameters", List.of("result 4 {x=7} 0.8"), tuner.calls);
    }
}
