package nni.manager.internal.config;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

public class ErrorTextTest {

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    @Test
    public void noExceptionClassNamesReachTheUser() {
        assertEquals("is a directory", ErrorText.of(new IOException("Is a directory")));
        assertEquals("is a directory", ErrorText.of(new RuntimeException(new IOException("Is a directory"))));
        assertEquals("is a directory", ErrorText.of(new IllegalStateException("java.io.IOException: Is a directory")));
        assertEquals("no such file: /x/y", ErrorText.of(new NoSuchFileException("/x/y")));
        assertEquals("permission denied: /etc/z", ErrorText.of(new AccessDeniedException("/etc/z")));
        assertEquals("an unexpected error", ErrorText.of(new NullPointerException()));
        assertEquals("an unexpected input/output error", ErrorText.of(new IOException()));
    }

    @Test
    public void aDirectoryGivenAsTheExperimentFileCannotBeRead() throws Exception {
        Path directory = folder.newFolder("not-a-file").toPath();
        ValidationReport report = Loaders.builtIn().validate(directory);
        assertEquals(java.util.List.of(directory + ":1:1: cannot read the file: is a directory"), report.lines());
        assertFalse(Files.isRegularFile(directory));
    }
}
