package nni.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The config loader's read failures in {@link nni.api.experiment.ErrorText}'s words. */
public class ConfigSourceErrorTextTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void aDirectoryGivenAsTheExperimentFileCannotBeRead() throws Exception {
        Path directory = folder.newFolder("not-a-file").toPath();
        ValidationReport report = Loaders.builtIn().validate(directory);
        assertEquals(java.util.List.of(directory + ":1:1: cannot read the file: is a directory"), report.lines());
        assertFalse(Files.isRegularFile(directory));
    }
}
