package nni.tuners.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import nni.api.model.TrialStatus;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherContext;

/**
 * One experiment run of Hyperband or BOHB, NNI's advisors, in Java: brackets of successive halving
 * ({@link Bracket}) from the one with the most rounds down to plain random search at the maximum
 * budget, then again. Each configuration reaches its trial with {@code TRIAL_BUDGET} among its
 * parameters. Trial slots the algorithm cannot fill yet (a round waits for its trials' results)
 * are kept as credit and filled when a round ends, as NNI's advisors do; meanwhile the experiment
 * is told there is nothing more for now.
 *
 * <p>Brackets start as NNI's {@code exec_mode} says: {@code parallelism} starts a new bracket
 * whenever no configuration waits, {@code serial} only once the current bracket has given out its
 * last round; BOHB only once that last round has ended too, so that its model has those results.
 *
 * <p>Parameter ids are integers, in the order configurations are given out (NNI's advisors use
 * strings such as {@code "0-4_0_3"}, which its trial SDK and its own resume code then mishandle,
 * microsoft/nni#5263). On resume the ids go on after the resumed trials'; results of trials of the
 * earlier run are not this run's brackets' and are left out, as NNI's advisors leave them out.
 */
final class HyperbandRun implements Dispatcher {

    static final String BUDGET_KEY = "TRIAL_BUDGET";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** When a new bracket may start. */
    enum Start {
        /** whenever no configuration waits (NNI's exec_mode parallelism) */
        WHEN_IDLE,
        /** once the current bracket has given out its last round (exec_mode serial) */
        AFTER_LAST_ROUND_STARTED,
        /** once the current bracket's last round has ended (BOHB) */
        AFTER_LAST_ROUND_ENDED
    }

    /** The arithmetic's settings: budgets from {@code minBudget} to {@code maxBudget}, {@code eta}. */
    record Settings(String algorithm, double minBudget, double maxBudget, int eta, boolean minimize, Start start) {
        int sMax() {
            return Bracket.sMax(minBudget, maxBudget, eta);
        }
    }

    private final DispatcherContext context;
    private final Settings settings;
    private Dims dims;
    private Configurations configurations;
    private final BiFunction<Dims, Configurations, Configurations> newConfigurations;

    private final Deque<Bracket.Entry> waiting = new ArrayDeque<>();
    private final Map<Long, Bracket> owners = new HashMap<>();
    private final Map<Long, Map<String, Object>> parameters = new HashMap<>();
    private final List<Bracket> brackets = new ArrayList<>();
    private Bracket current;
    private int nextS;
    private long nextId;
    private int credit;
    private boolean over;

    /**
     * @param configurations makes the source of new configurations for a search space (given the
     *                       previous source when the space changes, null at first)
     */
    HyperbandRun(DispatcherContext context, Settings settings, Dims dims,
                 BiFunction<Dims, Configurations, Configurations> configurations) {
        this.context = context;
        this.settings = settings;
        this.dims = dims;
        this.newConfigurations = configurations;
        this.configurations = configurations.apply(dims, null);
        this.nextS = settings.sMax();
        this.nextId = firstId(context.resumedParameters());
    }

    /** @return the id after the highest integer id of the trials a resumed experiment continues with */
    private static long firstId(List<String> resumed) {
        long first = 0;
        for (String packed : resumed) {
            try {
                JsonNode id = JSON.readTree(packed).path("parameter_id");
                if (id.canConvertToLong()) {
                    first = Math.max(first, id.asLong() + 1);
                }
            } catch (JsonProcessingException e) {
                // not a packed parameter: its id cannot collide
            }
        }
        return first;
    }

    /** @return the brackets started so far, oldest first (for tests) */
    List<Bracket> brackets() {
        return brackets;
    }

    // ------------------------------------------------------------------ manager -> algorithm

    @Override
    public synchronized void requestTrials(int count) {
        guarded(() -> {
            credit += count;
            fill();
        });
    }

    @Override
    public synchronized void reportMetric(String metric) {
        guarded(() -> {
            JsonNode line = JSON.readTree(metric);
            String type = line.path("type").asText();
            Long id = ResultNumbers.parameterId(line.path("parameter_id"));
            Bracket bracket = id == null ? null : owners.get(id);
            if (bracket == null || !(type.equals("FINAL") || type.equals("PERIODICAL"))) {
                return; // a trial of an earlier run, a customized trial, or a request this advisor does not serve
            }
            double value = value(line.path("value"));
            if (type.equals("FINAL")) {
                bracket.result(id, Long.MAX_VALUE, value);
                int round = bracket.roundOf(id);
                configurations.result(bracket.entry(id).point, bracket.budget(round), settings.minimize() ? value : -value);
            } else {
                bracket.result(id, line.path("sequence").asLong(), value);
            }
        });
    }

    @Override
    public boolean wantsIntermediateResults() {
        return true; // a trial without a final result is ranked by its latest intermediate one
    }

    @Override
    public synchronized void trialEnded(String trialId, TrialStatus status, String hyperParameters) {
        guarded(() -> {
            Long id = ResultNumbers.parameterId(JSON.readTree(hyperParameters).path("parameter_id"));
            Bracket bracket = id == null ? null : owners.get(id);
            if (bracket == null) {
                return;
            }
            for (Bracket.Entry promoted : bracket.ended(id, () -> nextId++)) {
                give(bracket, promoted);
            }
            fill();
        });
    }

    @Override
    public synchronized void updateSearchSpace(Map<String, Object> searchSpace) {
        guarded(() -> {
            dims = new Dims(SearchSpace.parse(searchSpace));
            configurations = newConfigurations.apply(dims, configurations);
        });
    }

    @Override
    public void importData(String results) {
        // NNI's Hyperband ignores imported results (its brackets are its own); BOHB's model starts from this run's results
    }

    @Override
    public synchronized void close() {
        over = true;
    }

    // ------------------------------------------------------------------ the brackets

    /** Gives out waiting configurations while slots are owed, starting brackets as the settings allow. */
    private void fill() throws JsonProcessingException {
        while (credit > 0 && !over) {
            if (waiting.isEmpty() && mayStartBracket()) {
                startBracket();
            }
            Bracket.Entry entry = waiting.poll();
            if (entry == null) {
                context.noMoreTrials();
                return;
            }
            credit--;
            context.newTrial(pack(entry));
        }
    }

    private boolean mayStartBracket() {
        if (current == null) {
            return true;
        }
        return switch (settings.start()) {
            case WHEN_IDLE -> true;
            case AFTER_LAST_ROUND_STARTED -> current.allStarted();
            case AFTER_LAST_ROUND_ENDED -> current.finished();
        };
    }

    private void startBracket() {
        int s = nextS;
        nextS = s == 0 ? settings.sMax() : s - 1;
        current = new Bracket(s, settings.sMax(), settings.eta(), settings.maxBudget(), settings.minimize());
        brackets.add(current);
        int budget = current.budget(0);
        List<Bracket.Entry> entries = new ArrayList<>();
        for (int k = 0; k < current.size(0); k++) {
            entries.add(new Bracket.Entry(nextId++, configurations.next(budget), budget));
        }
        for (Bracket.Entry entry : current.start(entries)) {
            give(current, entry);
        }
    }

    private void give(Bracket bracket, Bracket.Entry entry) {
        owners.put(entry.id, bracket);
        Map<String, Object> values = new LinkedHashMap<>(dims.parameters(entry.point));
        values.put(BUDGET_KEY, entry.budget);
        parameters.put(entry.id, values);
        waiting.add(entry);
    }

    private String pack(Bracket.Entry entry) throws JsonProcessingException {
        ObjectNode packed = JSON.createObjectNode();
        packed.put("parameter_id", entry.id);
        packed.put("parameter_source", "algorithm");
        packed.set("parameters", JSON.valueToTree(parameters.get(entry.id)));
        packed.put("parameter_index", 0);
        return JSON.writeValueAsString(packed);
    }

    // ------------------------------------------------------------------ reading NNI's JSON

    /** @return a metric's number, read as for every Java algorithm ({@link ResultNumbers#value}) */
    private static double value(JsonNode value) {
        Double number = ResultNumbers.value(value);
        if (number == null) {
            throw new IllegalArgumentException("a result must be a number or a mapping with a number \"default\", got "
                    + value.asText());
        }
        return number;
    }

    private interface Step {
        void run() throws Exception;
    }

    /** Runs a step; what it throws fails the experiment, once, and this run takes nothing more. */
    private void guarded(Step step) {
        if (over) {
            return;
        }
        try {
            step.run();
        } catch (Exception e) {
            over = true;
            context.failed(settings.algorithm() + " failed: " + e);
        }
    }
}
