package nni.launcher;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.Charset;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * While a one-shot command runs, what the framework's bundles print on {@code System.out} and
 * {@code System.err} (start-up messages, a library's stack trace) goes to the log, one record per
 * line, so that the console shows only the command's own output. The command itself writes to the
 * process's real standard streams ({@link FileDescriptor#out}, {@link FileDescriptor#err}).
 */
final class ConsoleCapture extends OutputStream {

    /** Re-entry guard: a log handler that reports its own trouble on System.err must not loop. */
    private static final ThreadLocal<Boolean> LOGGING = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private final Logger logger;
    private final Level level;
    private final Charset charset;
    private final PrintStream fallback;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

    private ConsoleCapture(String name, Level level, Charset charset, PrintStream fallback) {
        this.logger = Logger.getLogger(name);
        this.level = level;
        this.charset = charset;
        this.fallback = fallback;
    }

    /** Sends System.out and System.err to the log (loggers {@code stdout} and {@code stderr}). */
    static void install() {
        Charset charset = Charset.defaultCharset();
        PrintStream realErr = new PrintStream(new FileOutputStream(FileDescriptor.err), true, charset);
        System.setOut(new PrintStream(new ConsoleCapture("stdout", Level.INFO, charset, realErr), true, charset));
        System.setErr(new PrintStream(new ConsoleCapture("stderr", Level.WARNING, charset, realErr), true, charset));
    }

    @Override
    public synchronized void write(int b) {
        if (b == '\n') {
            flushLine();
        } else {
            line.write(b);
        }
    }

    @Override
    public synchronized void write(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            write(bytes[i]);
        }
    }

    private void flushLine() {
        String text = line.toString(charset);
        line.reset();
        if (text.endsWith("\r")) {
            text = text.substring(0, text.length() - 1);
        }
        if (LOGGING.get()) {
            fallback.println(text);
            return;
        }
        LOGGING.set(Boolean.TRUE);
        try {
            logger.log(level, text);
        } finally {
            LOGGING.set(Boolean.FALSE);
        }
    }
}
