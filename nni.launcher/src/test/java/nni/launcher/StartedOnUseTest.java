package nni.launcher;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.Test;

/** Which of the runnable jar's bundles the launcher leaves unstarted (run.bndrun's nni.launcher.started.on.use). */
public class StartedOnUseTest {

    private static final List<String> PATTERNS = List.of("io.fabric8.*", "org.example.exact");

    @Test
    public void aPrefixEndingInAStarMatchesEveryBundleUnderIt() {
        assertTrue(RuntimeFramework.startedOnUse(PATTERNS, "io.fabric8.kubernetes-model-core"));
        assertTrue(RuntimeFramework.startedOnUse(PATTERNS, "io.fabric8.zjsonpatch"));
        assertFalse(RuntimeFramework.startedOnUse(PATTERNS, "io.fabric8"));
        assertFalse(RuntimeFramework.startedOnUse(PATTERNS, "nni.ts.kubeflow"));
    }

    @Test
    public void aNameWithoutAStarMatchesOnlyItself() {
        assertTrue(RuntimeFramework.startedOnUse(PATTERNS, "org.example.exact"));
        assertFalse(RuntimeFramework.startedOnUse(PATTERNS, "org.example.exact.more"));
        assertFalse(RuntimeFramework.startedOnUse(PATTERNS, null));
        assertFalse(RuntimeFramework.startedOnUse(List.of(), "io.fabric8.kubernetes-client"));
    }
}
