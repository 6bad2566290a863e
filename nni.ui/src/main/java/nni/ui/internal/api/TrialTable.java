package nni.ui.internal.api;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import jakarta.servlet.http.HttpServletRequest;

import nni.api.experiment.ExperimentReading;
import nni.api.experiment.TrialSummary;
import nni.api.model.TrialJob;
import nni.api.model.TrialStatus;
import nni.http.HttpError;

/**
 * The trial table, paged, sorted and filtered on the server: a page of rows is what the browser
 * gets, whatever the number of trials. A row has a column per parameter, the default metric (the
 * final result; the latest intermediate one while the trial runs), the duration, the platform and
 * machine, and why the trial waits.
 */
final class TrialTable {

    static final int MAX_PAGE = 1000;
    private static final String PARAMETER_SORT = "param.";
    private static final List<String> SORTS = List.of("sequence", "id", "status", "default", "latest", "duration", "start",
            "end", "machine");

    /**
     * What a page shows.
     *
     * @param statuses only trials with these statuses (all when empty)
     * @param search   only trials whose id, or one of whose parameters written {@code name=value}, contains this
     *                 text (ignoring case); null for all
     */
    record Query(int offset, int limit, String sort, boolean descending, Set<TrialStatus> statuses, String search) {

        /**
         * From {@code ?offset=&limit=&sort=&order=asc|desc&status=A,B&q=}.
         *
         * @throws HttpError 400 naming the parameter that is wrong
         */
        static Query of(HttpServletRequest request) {
            int offset = (int) Queries.whole(request, "offset", 0, 0, Integer.MAX_VALUE);
            int limit = (int) Queries.whole(request, "limit", 50, 1, MAX_PAGE);
            String sort = request.getParameter("sort");
            if (sort == null || sort.isEmpty()) {
                sort = "sequence";
            } else if (!SORTS.contains(sort) && !(sort.startsWith(PARAMETER_SORT) && sort.length() > PARAMETER_SORT.length())) {
                throw HttpError.badRequest("sort: expected one of " + SORTS + " or param.<name>, got '" + sort + "'");
            }
            String order = request.getParameter("order");
            if (order != null && !order.equals("asc") && !order.equals("desc")) {
                throw HttpError.badRequest("order: expected asc or desc, got '" + order + "'");
            }
            Set<TrialStatus> statuses = EnumSet.noneOf(TrialStatus.class);
            String status = request.getParameter("status");
            if (status != null && !status.isBlank()) {
                for (String name : status.split(",")) {
                    try {
                        statuses.add(TrialStatus.valueOf(name.strip()));
                    } catch (IllegalArgumentException e) {
                        throw HttpError.badRequest("status: expected one or more (comma-separated) of "
                                + List.of(TrialStatus.values()) + ", got '" + name.strip() + "'");
                    }
                }
            }
            String search = request.getParameter("q");
            return new Query(offset, limit, sort, "desc".equals(order), statuses,
                    search == null || search.isBlank() ? null : search.strip().toLowerCase(Locale.ROOT));
        }
    }

    private TrialTable() {
    }

    /**
     * @return {@code {total, all, offset, limit, parameters: [names], rows: [...]}}: {@code total} trials
     *         match, {@code all} exist
     */
    static Map<String, Object> page(ExperimentReading experiment, Query query) {
        List<TrialSummary> all = experiment.trialSummaries();
        long now = System.currentTimeMillis();
        List<TrialSummary> matching = new ArrayList<>();
        for (TrialSummary trial : all) {
            if ((query.statuses().isEmpty() || query.statuses().contains(trial.job().status()))
                    && (query.search() == null || matches(trial, query.search()))) {
                matching.add(trial);
            }
        }
        matching = sorted(matching, query, now);
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int i = query.offset(); i < Math.min(matching.size(), query.offset() + query.limit()); i++) {
            rows.add(row(matching.get(i), now));
        }
        Map<String, Object> page = new LinkedHashMap<>();
        page.put("total", matching.size());
        page.put("all", all.size());
        page.put("offset", query.offset());
        page.put("limit", query.limit());
        page.put("parameters", parameterNames(experiment.searchSpace(), all));
        page.put("rows", rows);
        return page;
    }

    /** @return the parameter names: the search space's first, in its order, then any others trials have */
    static List<String> parameterNames(Map<String, Object> searchSpace, List<TrialSummary> trials) {
        Set<String> names = new LinkedHashSet<>(searchSpace.keySet());
        for (TrialSummary trial : trials) {
            names.addAll(trial.parameters().keySet());
        }
        return List.copyOf(names);
    }

    static Map<String, Object> row(TrialSummary trial, long now) {
        TrialJob job = trial.job();
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("id", job.id());
        row.put("sequence", trial.sequenceId());
        row.put("status", job.status().name());
        row.put("parameters", trial.parameters());
        row.put("default", trial.finalValue().orElse(null));
        row.put("latest", trial.latestValue().orElse(null));
        row.put("intermediateCount", trial.intermediateCount());
        row.put("submitTime", job.submitTime().toEpochMilli());
        row.put("startTime", job.startTime() == null ? null : job.startTime().toEpochMilli());
        row.put("endTime", job.endTime() == null ? null : job.endTime().toEpochMilli());
        row.put("durationMillis", durationMillis(job, now));
        row.put("platform", trial.platform().orElse(null));
        row.put("machine", machine(job));
        row.put("attributes", job.attributes());
        row.put("message", message(job, trial.waitingFor()));
        return row;
    }

    /** @return the machine (node, pod) a trial runs on, when its platform says; else null */
    static String machine(TrialJob job) {
        return job.host().isEmpty() ? null : job.host();
    }

    /**
     * @param away why the trial waits for its member's lost platform, when it does
     * @return why a trial waits or how it ended, or null; a trial waiting for its member's lost platform says so
     */
    static String message(TrialJob job, Optional<String> away) {
        if (away.isPresent()) {
            return away.get();
        }
        return job.message().isEmpty() ? null : job.message();
    }

    static Long durationMillis(TrialJob job, long now) {
        if (job.startTime() == null) {
            return null;
        }
        long end = job.endTime() != null ? job.endTime().toEpochMilli() : job.status().isTerminal() ? job.startTime().toEpochMilli() : now;
        return Math.max(0, end - job.startTime().toEpochMilli());
    }

    static boolean matches(TrialSummary trial, String search) {
        if (trial.job().id().toLowerCase(Locale.ROOT).contains(search)) {
            return true;
        }
        for (Map.Entry<String, Object> parameter : trial.parameters().entrySet()) {
            String written = parameter.getKey() + "=" + text(parameter.getValue());
            if (written.toLowerCase(Locale.ROOT).contains(search)) {
                return true;
            }
        }
        return false;
    }

    /** @return a parameter value as a person reads it: numbers and strings plainly, anything else as JSON */
    static String text(Object value) {
        if (value instanceof Map<?, ?> || value instanceof List<?>) {
            return Json.write(value);
        }
        return String.valueOf(value);
    }

    /**
     * @return the value a trial is sorted by, or null when it has none (such trials come last, in
     *         either direction)
     */
    private static Comparable<?> sortKey(String sort, TrialSummary trial, long now) {
        TrialJob job = trial.job();
        return switch (sort) {
            case "id" -> job.id();
            case "status" -> job.status().name();
            case "default" -> trial.finalValue().orElse(null);
            case "latest" -> trial.latestValue().orElse(null);
            case "duration" -> durationMillis(job, now);
            case "start" -> job.startTime();
            case "end" -> job.endTime();
            case "machine" -> machine(job);
            case "sequence" -> trial.sequenceId();
            default -> ParameterValue.of(trial.parameters().get(sort.substring(PARAMETER_SORT.length())));
        };
    }

    /** A parameter's value for sorting: numbers by value, before texts in text order. */
    private record ParameterValue(Double number, String text) implements Comparable<ParameterValue> {
        static ParameterValue of(Object value) {
            if (value == null) {
                return null;
            }
            return value instanceof Number n ? new ParameterValue(n.doubleValue(), null) : new ParameterValue(null, TrialTable.text(value));
        }

        @Override
        public int compareTo(ParameterValue other) {
            if (number != null && other.number != null) {
                return Double.compare(number, other.number);
            }
            if (number != null || other.number != null) {
                return number != null ? -1 : 1;
            }
            return text.compareTo(other.text);
        }
    }

    /** Sorts by the query's key, then by sequence; trials without a value for the key come last. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static List<TrialSummary> sorted(List<TrialSummary> trials, Query query, long now) {
        record Keyed(TrialSummary trial, Comparable key) {
        }
        List<Keyed> withKey = new ArrayList<>();
        List<TrialSummary> withoutKey = new ArrayList<>();
        for (TrialSummary trial : trials) {
            Comparable<?> key = sortKey(query.sort(), trial, now);
            if (key == null) {
                withoutKey.add(trial);
            } else {
                withKey.add(new Keyed(trial, key));
            }
        }
        Comparator<Keyed> byKey = (a, b) -> a.key().compareTo(b.key());
        if (query.descending()) {
            byKey = byKey.reversed();
        }
        withKey.sort(byKey.thenComparingLong(k -> k.trial().sequenceId()));
        List<TrialSummary> sorted = new ArrayList<>(trials.size());
        withKey.forEach(k -> sorted.add(k.trial()));
        sorted.addAll(withoutKey);
        return sorted;
    }
}
