package nni.manager.internal.experiment;

import java.io.IOException;

import org.junit.After;
import org.junit.Before;
import org.junit.rules.TemporaryFolder;

/**
 * What a test of one experiment starts from: its own code and work folders, the
 * {@link Experiments} builder over them, and the experiment the test made, detached when the test
 * ends (before its folders are deleted) so that its thread and platform sessions do not outlive it.
 */
abstract class ExperimentTestSupport {

    private final TemporaryFolder folders = new TemporaryFolder();
    protected Experiments setup;
    /** The test's experiment, once it made one. */
    protected Experiment experiment;

    @Before
    public void setUpExperiments() throws IOException {
        folders.create();
        setup = new Experiments(folders.newFolder("code").toPath(), folders.newFolder("work").toPath());
    }

    @After
    public void detachExperiment() {
        try {
            if (experiment != null) {
                experiment.detach();
            }
        } finally {
            folders.delete();
        }
    }
}
