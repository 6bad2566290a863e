package nni.itest.cloud;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

import org.yaml.snakeyaml.Yaml;

import nni.api.config.SectionCheck;
import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.KeeperSessions;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingPlatform;
import nni.api.platform.TrainingSession;

/**
 * The launchers of keeper-based platforms as their components make them, for the launcher contract
 * ({@code nni.api.testkit}'s {@code EnvironmentLauncherContract}) without the runtime. The platform
 * component is given a stand-in of the manager's {@link KeeperSessions}; its section is checked by
 * the component and a session opened for a stand-in experiment member, as the manager does; the
 * launcher the component hands to {@link KeeperSessions#open} is the launcher under test. Nothing
 * of the platform is reached into: what it builds and checks at open (credentials, cluster checks,
 * shares, watches) is what the contract then meets. {@link #close(EnvironmentLauncher)} closes the
 * session the launcher came from, as the end of an experiment does.
 *
 * <p>The stand-in session under the platform's own takes no trials: the contract's stand-in manager
 * plays the keeper protocol instead. One instance per test; not thread-safe.
 */
public final class PlatformLaunchers implements AutoCloseable {

    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path root;
    private final Map<EnvironmentLauncher, TrainingSession> sessions = new IdentityHashMap<>();

    /** @param root where the stand-in experiments' directories go (one per session) */
    public PlatformLaunchers(Path root) {
        this.root = root;
    }

    /**
     * A platform component's configuration as Configuration Admin would give it: each method of the
     * annotation answers its value in {@code values} (keyed by the method's name, strings converted
     * to numbers and booleans as the method needs), else its default.
     */
    public static <A> A config(Class<A> type, Map<String, ?> values) {
        Object proxy = Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[]{type}, (self, method, arguments) -> {
            Object value = values.get(method.getName());
            if (value == null) {
                return switch (method.getName()) {
                    case "annotationType" -> type;
                    case "toString" -> type.getSimpleName() + values;
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == arguments[0];
                    default -> method.getDefaultValue();
                };
            }
            return convert(method, value);
        });
        return type.cast(proxy);
    }

    private static Object convert(Method method, Object value) {
        Class<?> wanted = method.getReturnType();
        if (wanted.isInstance(value) || !(value instanceof String text)) {
            return value;
        }
        if (wanted == int.class) {
            return Integer.parseInt(text);
        }
        if (wanted == long.class) {
            return Long.parseLong(text);
        }
        if (wanted == boolean.class) {
            return Boolean.parseBoolean(text);
        }
        return value;
    }

    /**
     * Checks {@code section} with the component, opens a session for a new stand-in experiment with
     * it, and returns the launcher the component gave the keeper mechanism.
     *
     * @param component makes the platform component from the keeper mechanism it references
     * @param platform  the platform's name ({@code trainingService.platform})
     * @param section   the experiment's {@code trainingService} section, in YAML
     * @throws PlatformException        when the component refuses to open the session
     * @throws IllegalArgumentException when the component finds the section wrong (naming its problems)
     */
    public EnvironmentLauncher open(Function<KeeperSessions, TrainingPlatform> component, String platform, String section)
            throws PlatformException, IOException {
        String experimentId = experimentId();
        Path directory = Files.createDirectories(root.resolve(experimentId));
        Map<String, Object> fields = new Yaml().load("platform: " + platform + "\n" + section);
        Capture capture = new Capture();
        TrainingPlatform made = component.apply(capture);
        SectionCheck check = made.checkSection(fields, directory);
        if (!check.valid()) {
            throw new IllegalArgumentException("the " + platform + " component refuses the section: " + check.problems());
        }
        TrainingSession session = made.open(new Member(experimentId, directory, platform, check.section()));
        if (capture.launcher == null) {
            session.close();
            throw new IllegalStateException("the " + platform + " component opened a session without the keeper mechanism");
        }
        sessions.put(capture.launcher, session);
        return capture.launcher;
    }

    /** Closes the session {@code launcher} came from (which ends the launcher); nothing for another launcher. */
    public void close(EnvironmentLauncher launcher) {
        TrainingSession session = sessions.remove(launcher);
        if (session != null) {
            session.close();
        }
    }

    /** Closes every session still open. */
    @Override
    public void close() {
        for (EnvironmentLauncher launcher : new ArrayList<>(sessions.keySet())) {
            close(launcher);
        }
    }

    /** @return an id like NNI's: eight lower-case letters and digits, valid in Kubernetes names and labels */
    private static String experimentId() {
        String letters = "abcdefghijklmnopqrstuvwxyz0123456789";
        StringBuilder id = new StringBuilder("c");
        for (int i = 1; i < 8; i++) {
            id.append(letters.charAt(RANDOM.nextInt(letters.length())));
        }
        return id.toString();
    }

    /** The manager's keeper mechanism as a platform meets it: keeps the launcher, runs no trials. */
    private static final class Capture implements KeeperSessions {
        private EnvironmentLauncher launcher;

        @Override
        public TrainingSession open(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options) {
            this.launcher = launcher;
            return new NoTrials();
        }

        @Override
        public Path keeperFile(KeeperRuntime runtime) {
            throw new IllegalStateException("the launcher contract offers the keepers in each spec, not here");
        }
    }

    /** The keeper session under the platform's: the contract's stand-in manager runs the keepers instead. */
    private static final class NoTrials implements TrainingSession {
        @Override
        public TrialJob submit(TrialApplication application) throws PlatformException {
            throw new PlatformException("the launcher contract submits no trials through the session");
        }

        @Override
        public void cancel(String trialId, boolean earlyStopped) {
        }

        @Override
        public Optional<TrialJob> trial(String trialId) {
            return Optional.empty();
        }

        @Override
        public List<TrialJob> trials() {
            return List.of();
        }

        @Override
        public Optional<java.io.InputStream> openTrialFile(String trialId, String name) {
            return Optional.empty();
        }

        @Override
        public void close() {
        }

        @Override
        public void detach() {
        }
    }

    /** One member of a stand-in experiment: its id, directory and checked section; nothing reported is expected. */
    private record Member(String experimentId, Path experimentDirectory, String platform, Map<String, Object> section)
            implements SessionContext {

        @Override
        public void trialChanged(TrialJob trial) {
            throw new IllegalStateException("no trial runs through the launcher contract's session: " + trial);
        }

        @Override
        public void metricReported(String trialId, String line) {
            throw new IllegalStateException("no trial runs through the launcher contract's session: " + trialId);
        }

        @Override
        public void capacityChanged() {
        }
    }
}
