package nni.tuners.internal;

import static nni.tuners.internal.Spaces.json;
import static nni.tuners.internal.Spaces.list;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.Test;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

import com.fasterxml.jackson.databind.JsonNode;

import nni.api.config.ConfigProblem;
import nni.api.searchspace.SearchSpace;
import nni.api.tuner.AlgorithmSection;
import nni.api.tuner.Dispatcher;
import nni.api.tuner.DispatcherException;
import nni.api.tuner.Tuner;
import nni.api.tuner.TunerProvider;

/** The runner of the registry's Java providers: a third-party bundle's tuner is run as the built-in ones are. */
public class JavaAlgorithmsProviderTest {

    private static final Map<String, Object> SPACE = json("x", "choice", list(1, 2, 3));

    /** A tuner provider as another bundle would register one: it always proposes x = {@code x}. */
    private static TunerProvider thirdParty(int x) {
        return new TunerProvider() {
            @Override
            public List<ConfigProblem> checkArguments(Map<String, Object> classArgs) {
                return classArgs.containsKey("wrong") ? List.of(new ConfigProblem("wrong", "not an argument")) : List.of();
            }

            @Override
            public Tuner create(Map<String, Object> classArgs, SearchSpace searchSpace) {
                return new Tuner() {
                    @Override
                    public Optional<Map<String, Object>> generateParameters(long parameterId) {
                        return Optional.of(Map.of("x", x));
                    }

                    @Override
                    public void receiveTrialResult(long parameterId, Map<String, Object> parameters, double value) {
                    }
                };
            }
        };
    }

    /** @return a service reference of an algorithm service with this name, ranking and id (it ranks as the framework ranks) */
    @SuppressWarnings("unchecked")
    private static <T> ServiceReference<T> reference(String name, int ranking, long id) {
        Map<String, Object> properties = Map.of(TunerProvider.ALGORITHM, name, Constants.SERVICE_RANKING, ranking,
                Constants.SERVICE_ID, id);
        return (ServiceReference<T>) Proxy.newProxyInstance(JavaAlgorithmsProviderTest.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> properties.get((String) args[0]);
                    case "compareTo" -> {
                        ServiceReference<?> other = (ServiceReference<?>) args[0];
                        int byRanking = Integer.compare(ranking, (Integer) other.getProperty(Constants.SERVICE_RANKING));
                        yield byRanking != 0 ? byRanking : Long.compare((Long) other.getProperty(Constants.SERVICE_ID), id);
                    }
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> null;
                });
    }

    private static AlgorithmSection named(String name, Map<String, Object> classArgs) {
        return AlgorithmSection.builder().name(name).classArgs(classArgs).build();
    }

    private static int proposedX(JavaAlgorithmsProvider provider, String name) throws DispatcherException {
        RecordingContext context = new RecordingContext(SPACE, named(name, Map.of()), List.of());
        Dispatcher run = provider.start(context);
        run.requestTrials(1);
        List<JsonNode> trials = context.takeTrials();
        assertEquals(context.answers.toString(), 1, trials.size());
        return trials.get(0).get("parameters").get("x").asInt();
    }

    @Test
    public void aThirdPartyTunerIsRunByItsNameIgnoringCaseTheBestRankedFirst() throws Exception {
        JavaAlgorithmsProvider provider = new JavaAlgorithmsProvider();
        ServiceReference<TunerProvider> low = reference("AcmeTuner", 0, 7);
        ServiceReference<TunerProvider> high = reference("AcmeTuner", 5, 8);
        provider.bindTuner(low, thirdParty(1));
        provider.bindTuner(high, thirdParty(2));
        assertEquals(2, proposedX(provider, "acmetuner"));

        provider.unbindTuner(high);
        assertEquals("the other one answers once the best-ranked is gone", 1, proposedX(provider, "AcmeTuner"));

        provider.unbindTuner(low);
        DispatcherException gone = assertThrows(DispatcherException.class, () -> proposedX(provider, "AcmeTuner"));
        assertTrue(gone.getMessage(), gone.getMessage().startsWith("tuner.name: no Java tuner named \"AcmeTuner\""));
    }

    @Test
    public void theSectionsAreCheckedByTheirProvidersWithPathsFromTheRoot() {
        JavaAlgorithmsProvider provider = new JavaAlgorithmsProvider();
        provider.bindTuner(reference("AcmeTuner", 0, 7), thirdParty(1));
        provider.addAssessor("Medianstop", new MedianstopAssessorProvider());

        assertEquals(List.of(), provider.checkAlgorithms(named("AcmeTuner", Map.of()), named("Medianstop", Map.of())));
        List<ConfigProblem> problems = provider.checkAlgorithms(named("AcmeTuner", Map.of("wrong", 1)),
                named("Medianstop", Map.of("start_step", -1)));
        assertEquals(2, problems.size());
        assertEquals("tuner.classArgs.wrong", problems.get(0).path());
        assertEquals("assessor.classArgs.start_step", problems.get(1).path());
        assertEquals("assessor.name", provider.checkAlgorithms(named("AcmeTuner", Map.of()), named("Curvefitting", Map.of()))
                .get(0).path());
    }

    /** What the manager's Java path met only when it made the tuner is found by the provider's check. */
    @Test
    public void aSearchSpaceTheTunerCannotHandleIsAProblemOfTheCheck() {
        JavaAlgorithmsProvider provider = new JavaAlgorithmsProvider();
        provider.addTuner("GridSearch", new GridSearchTunerProvider());
        assertEquals(List.of(), provider.checkSearchSpace(named("GridSearch", Map.of()), SPACE));
        List<ConfigProblem> empty = provider.checkSearchSpace(named("GridSearch", Map.of()), Map.of());
        assertEquals(1, empty.size());
        assertEquals("", empty.get(0).path());
        assertEquals("GridSearch needs a search space with at least one parameter", empty.get(0).message());
    }

    @Test
    public void aTunerThatRefusesTheSearchSpaceRefusesToStartNamingIt() {
        JavaAlgorithmsProvider provider = new JavaAlgorithmsProvider();
        provider.addTuner("GridSearch", new GridSearchTunerProvider());
        RecordingContext context = new RecordingContext(Map.of(), named("GridSearch", Map.of()),
                List.of());
        DispatcherException refused = assertThrows(DispatcherException.class, () -> provider.start(context));
        assertTrue(refused.getMessage(), refused.getMessage().startsWith("tuner GridSearch: "));
    }
}
