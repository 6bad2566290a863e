package nni.manager.internal.experiment;

import static org.junit.Assert.assertEquals;
import static org.junit.Assume.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Only experiment folders in the experiments root are experiments: not NNI's {@code _latest} link, nor other entries. */
public class ExperimentFoldersTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private Path experiment(Path root, String name) throws IOException {
        Path db = Files.createDirectories(root.resolve(name).resolve("db"));
        Files.writeString(db.resolve("nni.sqlite"), "");
        return root.resolve(name);
    }

    @Test
    public void aLinkOrAFolderNotNamedAsAnExperimentIsNotListed() throws IOException {
        Path root = folder.newFolder("experiments").toPath();
        Path newest = experiment(root, "k3b9x2qa");
        experiment(root, "abc12345");
        experiment(root, "_old");
        Files.createDirectories(root.resolve("notes"));
        Files.writeString(root.resolve(".experiment"), "{}");
        try {
            Files.createSymbolicLink(root.resolve("_latest"), newest);
            Files.createSymbolicLink(root.resolve("latest"), newest);
        } catch (UnsupportedOperationException | IOException e) {
            assumeTrue("symbolic links cannot be made here: " + e, false);
        }
        assertEquals(List.of("abc12345", "k3b9x2qa"), ExperimentManager.storedIn(root));
    }
}
