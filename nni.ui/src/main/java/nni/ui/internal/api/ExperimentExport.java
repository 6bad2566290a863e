package nni.ui.internal.api;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentReading;
import nni.api.experiment.GivenConfigFile;
import nni.api.experiment.MetricInfo;
import nni.api.experiment.TrialSummary;
import nni.http.HttpError;
import nni.http.JsonServlet.Download;

/**
 * What the web UI's export downloads and its config view shows. Every trial as the trial table has
 * it and the canonical configuration (secrets masked) come as one JSON answer, from which the
 * browser makes the trials' CSV and JSON files; the metrics, which can be millions, are streamed
 * from the store as a download ({@code metrics.csv}, {@code metrics.json}), never held whole.
 */
final class ExperimentExport {

    static final List<String> METRIC_FILES = List.of("metrics.csv", "metrics.json");

    private ExperimentExport() {
    }

    /**
     * @param status the status shown (an experiment not open: the one it ended with)
     * @return {@code {id, name, status, parameters: [names], trials: [rows], metricFiles: [names], config: {...},
     *         given: {file, text} or null}}
     */
    static Map<String, Object> of(ExperimentReading experiment, String status) throws IOException {
        long now = System.currentTimeMillis();
        List<TrialSummary> summaries = experiment.trialSummaries();
        List<Map<String, Object>> trials = new ArrayList<>(summaries.size());
        for (TrialSummary trial : summaries) {
            trials.add(TrialTable.row(trial, now));
        }
        Map<String, Object> export = new LinkedHashMap<>();
        ExperimentInfo info = experiment.info();
        export.put("id", info.id());
        export.put("name", info.name().orElse(null));
        export.put("status", status);
        export.put("parameters", TrialTable.parameterNames(experiment.searchSpace(), summaries));
        export.put("trials", trials);
        export.put("metricFiles", METRIC_FILES);
        export.put("config", experiment.profile().params());
        export.put("given", given(experiment));
        return export;
    }

    /** @return {@code {file, text}}: the config file as the user gave it, secrets masked; null when it was not kept */
    private static Map<String, Object> given(ExperimentReading experiment) throws IOException {
        Optional<GivenConfigFile> given = experiment.givenConfig();
        if (given.isEmpty()) {
            return null;
        }
        Map<String, Object> file = new LinkedHashMap<>();
        file.put("file", given.get().fileName());
        file.put("text", given.get().text());
        return file;
    }

    /**
     * Every metric in arrival order: trial, parameter id, type, sequence, time (ISO 8601) and the
     * value as the trial reported it (NNI stores it JSON-encoded twice: decoded once here).
     *
     * @throws HttpError 404 for a file name the export does not have
     */
    static Download metrics(ExperimentReading experiment, String file) {
        String name = experiment.info().id() + "-" + file;
        return switch (file) {
            case "metrics.csv" -> new Download(name, "text/csv; charset=utf-8", out -> {
                Writer writer = new BufferedWriter(new OutputStreamWriter(out, StandardCharsets.UTF_8));
                writer.write("trialId,parameterId,type,sequence,timestamp,value\r\n");
                each(experiment, metric -> {
                    writer.write(String.join(",", csv(metric.trialId()), csv(metric.parameterId().orElse(null)), csv(metric.type()),
                            Long.toString(metric.sequence()), metric.timestamp().toString(),
                            csv(reported(metric.data()))));
                    writer.write("\r\n");
                });
                writer.flush();
            });
            case "metrics.json" -> new Download(name, "application/json", out -> {
                try (JsonGenerator json = Json.MAPPER.getFactory().createGenerator(out)) {
                    json.writeStartArray();
                    each(experiment, metric -> {
                        json.writeStartObject();
                        json.writeStringField("trialId", metric.trialId());
                        json.writeStringField("parameterId", metric.parameterId().orElse(null));
                        json.writeStringField("type", metric.type());
                        json.writeNumberField("sequence", metric.sequence());
                        json.writeNumberField("timestamp", metric.timestamp().toEpochMilli());
                        json.writeFieldName("value");
                        json.writeTree(value(reported(metric.data())));
                        json.writeEndObject();
                    });
                    json.writeEndArray();
                }
            });
            default -> throw HttpError.notFound("no export file " + file + "; there are " + METRIC_FILES);
        };
    }

    @FunctionalInterface
    private interface MetricWriter {
        void write(MetricInfo metric) throws IOException;
    }

    private static void each(ExperimentReading experiment, MetricWriter writer) throws IOException {
        try {
            experiment.forEachMetric(metric -> {
                try {
                    writer.write(metric);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (UncheckedIOException e) {
            throw e.getCause(); // the client went away
        }
    }

    /** @return the value as the trial reported it: NNI's stored text decoded once (a number, or a JSON object, as text) */
    static String reported(String data) {
        try {
            JsonNode outer = Json.MAPPER.readTree(data);
            return outer.isTextual() ? outer.asText() : data;
        } catch (IOException e) {
            return data;
        }
    }

    /** @return the reported text as JSON: a number or object as it is, anything else as a string */
    private static JsonNode value(String reported) {
        try {
            return Json.MAPPER.readTree(reported);
        } catch (IOException notJson) {
            return Json.MAPPER.getNodeFactory().textNode(reported);
        }
    }

    /** RFC 4180: a field with a comma, quote or line break quoted, its quotes doubled. */
    private static String csv(String field) {
        if (field == null) {
            return "";
        }
        return field.matches("(?s).*[\",\r\n].*") ? "\"" + field.replace("\"", "\"\"") + "\"" : field;
    }
}
