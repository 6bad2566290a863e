package nni.api.experiment;

import static org.junit.Assert.assertEquals;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;

import org.junit.Test;

public class ErrorTextTest {

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
}
