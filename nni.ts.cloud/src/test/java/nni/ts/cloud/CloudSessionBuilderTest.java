package nni.ts.cloud;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.Test;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.EnvironmentSpec;
import nni.api.environment.KeeperChoice;
import nni.api.environment.KeeperOptions;
import nni.api.environment.KeeperRuntime;
import nni.api.environment.KeeperSessions;
import nni.api.model.TrialJob;
import nni.api.platform.PlatformException;
import nni.api.platform.SessionContext;
import nni.api.platform.TrainingSession;

/**
 * What every cloud platform's session gets from the builder: a bad setting is refused naming the
 * platform, a refused cluster check closes the platform's API before any job or keeper session, and
 * the keeper session is opened with the shared settings the platform gave.
 */
public class CloudSessionBuilderTest {

    private final List<KeeperOptions> opened = new ArrayList<>();
    private final PlatformException keeperSessionRefused = new PlatformException("no keeper session in this test");
    /** Records what it was asked to open, then refuses: the test needs no running keepers. */
    private final KeeperSessions keeperSessions = new KeeperSessions() {
        @Override
        public TrainingSession open(SessionContext context, EnvironmentLauncher launcher, KeeperOptions options)
                throws PlatformException {
            opened.add(options);
            throw keeperSessionRefused;
        }

        @Override
        public Path keeperFile(KeeperRuntime runtime) {
            throw new UnsupportedOperationException();
        }
    };

    @Test
    public void aBadKeeperSettingIsRefusedNamingThePlatform() {
        CloudSessionBuilder session = new CloudSessionBuilder("openpai", "OpenPAI", context(), keeperSessions);
        PlatformException refused = assertThrows(PlatformException.class, () -> session.keeper("sometimes"));
        assertTrue(refused.getMessage(), refused.getMessage().startsWith("openpai: "));
        assertTrue(refused.getMessage(), refused.getMessage().contains("sometimes"));
    }

    @Test
    public void aStepThatCannotReadItsFileIsRefusedNamingThePlatform() {
        CloudSessionBuilder session = new CloudSessionBuilder("dlc", "PAI-DLC", context(), keeperSessions);
        PlatformException refused = assertThrows(PlatformException.class,
                () -> session.checked(() -> { throw new java.io.IOException("ecs.json: no such file"); }));
        assertEquals("dlc: ecs.json: no such file", refused.getMessage());
    }

    @Test
    public void aRefusedCheckClosesTheApiAndOpensNoKeeperSession() {
        RecordingApi api = new RecordingApi();
        PlatformException badToken = new PlatformException("the token is refused");
        CloudSessionBuilder session = new CloudSessionBuilder("openpai", "OpenPAI", context(), keeperSessions)
                .refresh(1).missingAfter(1).checking("the OpenPAI token", () -> {
                    throw badToken;
                });
        assertSame(badToken, assertThrows(PlatformException.class, () -> session.open(api)));
        assertTrue("the API is closed", api.closed);
        assertTrue("no keeper session", opened.isEmpty());
    }

    @Test
    public void theKeeperSessionGetsTheSharedSettings() throws PlatformException {
        RecordingApi api = new RecordingApi();
        CloudSessionBuilder session = new CloudSessionBuilder("openpai", "OpenPAI", context(), keeperSessions)
                .nniPlatform("pai");
        assertEquals(KeeperChoice.JAVA, session.keeper("Java"));
        session.reuse(false).maxJobs(0).idleTimeout(42).managerHost("10.0.0.7").refresh(1).missingAfter(1)
                .checking("the OpenPAI token", () -> "the cluster is unreachable now");
        assertSame(keeperSessionRefused, assertThrows(PlatformException.class, () -> session.open(api)));
        assertEquals(1, opened.size());
        KeeperOptions options = opened.get(0);
        assertEquals("pai", options.platform());
        assertFalse(options.reuse());
        assertEquals("at least one job", 1, options.maxEnvironments());
        assertEquals(Duration.ofSeconds(42), options.idleTimeout());
        assertEquals("10.0.0.7", options.managerHost());
        assertEquals(KeeperChoice.JAVA, options.keeper());
        assertFalse("over HTTP unless told", options.transport().files());
        assertTrue("a keeper session that cannot open detaches the launcher, closing the API", api.closed);
    }

    @Test
    public void unsetSettingsKeepTheKeeperSessionsDefaults() throws PlatformException {
        CloudSessionBuilder session = new CloudSessionBuilder("dlts", "DLTS", context(), keeperSessions)
                .refresh(1).missingAfter(1);
        assertThrows(PlatformException.class, () -> session.open(new RecordingApi()));
        KeeperOptions options = opened.get(0);
        assertEquals("dlts", options.platform());
        assertTrue(options.reuse());
        assertEquals(KeeperOptions.builder("dlts").build().idleTimeout(), options.idleTimeout());
        assertEquals(KeeperChoice.AUTO, options.keeper());
        assertNull(options.managerHost());
    }

    private static SessionContext context() {
        return new SessionContext() {
            @Override
            public String experimentId() {
                return "exp1";
            }

            @Override
            public Path experimentDirectory() {
                return Path.of("/nonexistent/exp1");
            }

            @Override
            public String platform() {
                return "openpai";
            }

            @Override
            public Map<String, Object> section() {
                return Map.of();
            }

            @Override
            public void trialChanged(TrialJob trial) {
            }

            @Override
            public void metricReported(String trialId, String line) {
            }

            @Override
            public void capacityChanged() {
            }
        };
    }

    /** A cluster with no jobs, that remembers being closed. */
    private static final class RecordingApi implements JobLauncher.Api {
        volatile boolean closed;

        @Override
        public String submit(EnvironmentSpec spec) throws CloudException {
            throw new UnsupportedOperationException("no jobs in this test");
        }

        @Override
        public JobStatus status(String handle) {
            return JobStatus.missing();
        }

        @Override
        public void stop(String handle) {
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
