package nni.keeper.internal.reuse;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import nni.api.environment.EnvironmentLauncher;
import nni.api.environment.KeeperOptions;
import nni.api.model.HyperParameters;
import nni.api.model.TrialApplication;
import nni.api.model.TrialJob;
import nni.api.platform.PlatformException;
import nni.keeper.internal.report.KeeperLink;
import nni.keeper.internal.report.KeeperLinkFile;
import nni.keeper.internal.report.KeeperLinks;

/**
 * A runtime killed right after it gave a trial to an idle runner keeper (its link file says the
 * keeper runs the trial) but before the keeper fetched the new-trial command: the command died with
 * it. Taking the trial back after the restart must give it to the keeper again, or the trial waits
 * for ever for reports of a run that never began (seen in {@code crash.sh reuse}).
 */
public class TakeBackTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Rule
    public SessionFixture sessions = new SessionFixture();

    @Test
    public void aTrialTheKeeperNeverHeardOfIsGivenToItAgain() throws Exception {
        Path directory = folder.getRoot().toPath();
        // what the runtime before the crash left: runner K0001 listed as running trial Tr001, which it never started
        KeeperLinkFile.open(directory, SessionFixture.URL).put("K0001", "token-1", "Tr001", 7, "");
        TrialApplication application = TrialApplication.builder("Tr001").sequenceId(3)
                .hyperParameters(HyperParameters.of("{\"parameter_id\": 3}", 0)).build();
        TrialJob stored = TrialJob.waiting(application, "", "").toBuilder().handle("K0001").build();

        KeeperLinks links = sessions.links;
        KeeperSession session = open(directory, links, true);
        assertTrue(session.reattach(stored).isPresent());

        KeeperLink link = links.find(SessionFixture.EXPERIMENT, "K0001");
        List<Map<String, Object>> commands = link.queuedCommands();
        assertEquals(commands.toString(), 1, commands.size());
        assertEquals("new-trial", commands.get(0).get("type"));
        assertEquals("Tr001", commands.get(0).get("trial"));
        assertEquals(3L, ((Number) commands.get(0).get("sequenceId")).longValue());
        session.detach();
    }

    @Test
    public void aTrialTheKeeperReportedStartedIsNotGivenAgain() throws Exception {
        Path directory = folder.getRoot().toPath();
        KeeperLinkFile.open(directory, SessionFixture.URL).put("K0001", "token-1", "Tr001", 7, "");
        TrialApplication application = TrialApplication.builder("Tr001").sequenceId(3)
                .hyperParameters(HyperParameters.of("{\"parameter_id\": 3}", 0)).build();
        TrialJob stored = TrialJob.waiting(application, "", "").running(java.time.Instant.now()).toBuilder()
                .handle("K0001").build();

        KeeperLinks links = sessions.links;
        KeeperSession session = open(directory, links, true);
        assertTrue(session.reattach(stored).isPresent());
        assertEquals(List.of(), links.find(SessionFixture.EXPERIMENT, "K0001").queuedCommands());
        session.detach();
    }

    private KeeperSession open(Path directory, KeeperLinks links, boolean reuse) {
        EnvironmentLauncher launcher = (spec, listener) -> {
            throw new PlatformException("no environment is started in this test");
        };
        return sessions.open(directory, KeeperOptions.builder("local").reuse(reuse).build(), launcher);
    }
}
