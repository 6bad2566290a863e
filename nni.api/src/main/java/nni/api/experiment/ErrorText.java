package nni.api.experiment;

import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.regex.Pattern;

/**
 * What went wrong, in words for the user: no Java exception class names
 * ({@code java.io.IOException: Is a directory} is {@code is a directory}), the wrappers libraries
 * put around a cause taken off.
 */
public final class ErrorText {

    /** A class name a wrapper put in front of its cause's message: {@code java.io.IOException: }. */
    private static final Pattern CLASS_PREFIX = Pattern.compile("^(?:[a-z][\\w$]*\\.)+[A-Z][\\w$]*(?:Exception|Error): ");

    private ErrorText() {
    }

    /** @return the problem {@code error} describes, starting lower case */
    public static String of(Throwable error) {
        Throwable shown = error;
        // a wrapper whose message is only its cause (new RuntimeException(cause)) says nothing of its own
        while (shown.getCause() != null && (shown.getMessage() == null || shown.getMessage().equals(shown.getCause().toString()))) {
            shown = shown.getCause();
        }
        String text;
        if (shown instanceof NoSuchFileException missing) {
            text = "no such file" + file(missing);
        } else if (shown instanceof AccessDeniedException denied) {
            text = "permission denied" + file(denied);
        } else if (shown instanceof NotDirectoryException notDirectory) {
            text = "not a directory" + file(notDirectory);
        } else if (shown instanceof FileSystemException failed && failed.getReason() != null) {
            text = failed.getReason() + file(failed);
        } else {
            text = shown.getMessage();
        }
        if (text == null || text.isBlank()) {
            return "an unexpected " + (shown instanceof java.io.IOException ? "input/output error" : "error");
        }
        while (CLASS_PREFIX.matcher(text).find()) {
            text = CLASS_PREFIX.matcher(text).replaceFirst("");
        }
        return Character.toLowerCase(text.charAt(0)) + text.substring(1);
    }

    private static String file(FileSystemException e) {
        return e.getFile() == null ? "" : ": " + e.getFile();
    }
}
