package nni.shell.internal.nnictl;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/**
 * An experiment whose process is gone (the runtime restarted) keeps the outcome it ended with in
 * NNI's registry; one that was still running or being looked at is STOPPED, as NNI's manager marks it.
 */
public class EndedStatusTest {

    @Test
    public void anOutcomeOutlivesTheProcess() {
        assertEquals("DONE", NnictlRegistryFile.afterExit("DONE"));
        assertEquals("ERROR", NnictlRegistryFile.afterExit("ERROR"));
        for (String unsettled : new String[] {"RUNNING", "NO_MORE_TRIAL", "TUNER_NO_MORE_TRIAL", "INITIALIZED", "STOPPING",
                "VIEWED", "STOPPED"}) {
            assertEquals(unsettled, "STOPPED", NnictlRegistryFile.afterExit(unsettled));
        }
        assertEquals("STOPPED", NnictlRegistryFile.afterExit(null));
    }
}
