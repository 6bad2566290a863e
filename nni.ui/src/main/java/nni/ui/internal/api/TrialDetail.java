package nni.ui.internal.api;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.ExperimentService;
import nni.api.experiment.TrialInfo;
import nni.api.model.TrialJob;
import nni.http.HttpError;

/** One trial for its page: parameters, intermediate results (thinned), final result, and its output files. */
final class TrialDetail {

    /** The most of a file's end that is sent: a viewer shows the end of a long log. */
    static final int MAX_TAIL = 4 << 20;
    static final int DEFAULT_TAIL = 256 << 10;

    private TrialDetail() {
    }

    /**
     * @throws HttpError 404 when the experiment has no such trial
     */
    static Map<String, Object> of(ExperimentReading experiment, String trialId, int maxPoints) {
        TrialInfo trial = experiment.trial(trialId).orElseThrow(() -> noTrial(experiment, trialId));
        TrialJob job = trial.job();
        Map<String, Object> detail = new LinkedHashMap<>();
        detail.put("id", job.id());
        detail.put("experiment", trial.experimentId());
        detail.put("sequence", trial.sequenceId());
        detail.put("status", job.status().name());
        detail.put("message", TrialTable.message(job, trial.waitingFor()));
        detail.put("parameters", parameters(trial.packedParameters().orElse("{}")));
        detail.put("default", trial.finalValue().orElse(null));
        detail.put("submitTime", job.submitTime().toEpochMilli());
        detail.put("startTime", job.startTime() == null ? null : job.startTime().toEpochMilli());
        detail.put("endTime", job.endTime() == null ? null : job.endTime().toEpochMilli());
        detail.put("durationMillis", TrialTable.durationMillis(job, System.currentTimeMillis()));
        detail.put("platform", trial.platform().orElse(null));
        detail.put("machine", TrialTable.machine(job));
        detail.put("attributes", job.attributes());
        detail.put("workingDirectory", job.workingDirectory());
        detail.put("url", job.url());
        detail.put("cancellable", !job.status().isTerminal() && experiment.open() && !experiment.info().readOnly());
        detail.put("files", ExperimentService.TRIAL_FILES);
        detail.put("intermediate", MetricCharts.intermediate(trial.intermediate(), maxPoints));
        return detail;
    }

    static HttpError noTrial(ExperimentReading experiment, String trialId) {
        return HttpError.notFound("experiment " + experiment.info().id() + " has no trial " + trialId);
    }

    static Object parameters(String packed) {
        try {
            return Json.MAPPER.readTree(packed).path("parameters");
        } catch (IOException e) {
            return packed;
        }
    }

    /**
     * @return {@code {name, text, size, truncated, exists}}: the last {@code maxBytes} of the file
     * @throws HttpError 404 for an unknown trial, 400 for a file name trials do not have
     */
    static Map<String, Object> tail(ExperimentReading experiment, String trialId, String name, int maxBytes) throws IOException {
        if (experiment.trial(trialId).isEmpty()) {
            throw noTrial(experiment, trialId);
        }
        if (!ExperimentService.TRIAL_FILES.contains(name)) {
            throw HttpError.badRequest("which: expected stdout, stderr or trial.log, got '" + name + "'");
        }
        Optional<InputStream> file = HttpError.answer(experiment.openTrialFile(trialId, name), "");
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("name", name);
        answer.put("exists", file.isPresent());
        if (file.isEmpty()) {
            answer.put("text", "");
            answer.put("size", 0);
            answer.put("truncated", false);
            return answer;
        }
        // the end of the stream, whatever its length: a ring of maxBytes
        byte[] ring = new byte[maxBytes];
        long size = 0;
        try (InputStream in = file.get()) {
            byte[] buffer = new byte[64 << 10];
            int read;
            while ((read = in.read(buffer)) >= 0) {
                for (int done = 0; done < read; ) {
                    int at = (int) (size % maxBytes);
                    int length = Math.min(read - done, maxBytes - at);
                    System.arraycopy(buffer, done, ring, at, length);
                    done += length;
                    size += length;
                }
            }
        }
        byte[] tail;
        if (size <= maxBytes) {
            tail = java.util.Arrays.copyOf(ring, (int) size);
        } else {
            int start = (int) (size % maxBytes);
            tail = new byte[maxBytes];
            System.arraycopy(ring, start, tail, 0, maxBytes - start);
            System.arraycopy(ring, 0, tail, maxBytes - start, start);
        }
        String text = new String(tail, StandardCharsets.UTF_8);
        if (size > maxBytes) {
            // start at a whole line
            int newline = text.indexOf('\n');
            text = newline >= 0 ? text.substring(newline + 1) : text;
        }
        answer.put("text", text);
        answer.put("size", size);
        answer.put("truncated", size > maxBytes);
        return answer;
    }
}
