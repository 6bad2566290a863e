package nni.shell.internal.console;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletName;
import org.osgi.service.servlet.whiteboard.propertytypes.HttpWhiteboardServletPattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.osgi.service.servlet.whiteboard.Preprocessor;

import nni.api.experiment.ExperimentService;
import nni.http.LoginGuard;
import nni.http.TokenFile;
import nni.shell.internal.command.ClientSide;

/**
 * The console of {@code java -jar nni-osgi.jar client} and of the runtime's own terminal: Gogo
 * lines run here, on the one HTTP port, for a client that proves it may (the token in
 * {@code <home>/console.token}, readable by its owner only, sent as {@value #TOKEN_HEADER}; beyond
 * loopback the login's token is asked for too, by the login gate in front of every path).
 *
 * <pre>
 * POST /api/v1/nni-console/run        body: a line; header X-NNI-Console-Run: an id the client chose,
 *                                     X-NNI-Console-Directory: the client's folder (file arguments are its),
 *                                     X-NNI-Console-Columns: its terminal's width, when its output is one
 *                                     answer: frames (FramedOutput) while the line runs, then its end code
 * POST /api/v1/nni-console/interrupt?run=ID     Ctrl-C: interrupts the line that runs as ID
 * POST /api/v1/nni-console/complete   body: the line up to the cursor; answer: candidates, one a line
 * </pre>
 */
@Component(service = Servlet.class)
@HttpWhiteboardServletPattern(ConsoleServlet.PATH + "/*")
@HttpWhiteboardServletName("nni-console")
public class ConsoleServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleServlet.class);

    static final String PATH = "/api/v1/nni-console";
    static final String TOKEN_HEADER = "X-NNI-Console-Token";
    static final String DIRECTORY_HEADER = "X-NNI-Console-Directory";
    static final String COLUMNS_HEADER = "X-NNI-Console-Columns";
    private static final int MAX_LINE_BYTES = 64 << 10;
    /** How long an interrupted line may take to end before its answer ends without it. */
    private static final long INTERRUPT_PATIENCE_SECONDS = 10;

    private final transient CommandProcessor processor;
    private final transient LineRunner runner;
    private final transient Completions completions;
    private final transient byte[] tokenDigest;
    private final transient ExecutorService lines;
    private final transient Map<String, Future<?>> running = new ConcurrentHashMap<>();

    /** @param login registered only once the login guards the port */
    @Activate
    public ConsoleServlet(BundleContext context, @Reference CommandProcessor processor, @Reference ExperimentService experiments,
                          @Reference(service = Preprocessor.class, target = LoginGuard.TARGET) Preprocessor login) throws IOException {
        this.processor = processor;
        CommandHelp help = new CommandHelp(context);
        this.runner = new LineRunner(help);
        this.completions = new Completions(help, experiments);
        String home = context.getProperty("nni.home");
        String token = home == null ? null : new TokenFile(Path.of(home, "console.token"), "console token").readOrCreate().value();
        this.tokenDigest = token == null ? null : sha256(token);
        AtomicInteger count = new AtomicInteger();
        this.lines = Executors.newCachedThreadPool(task -> new Thread(task, "nni-console-" + count.incrementAndGet()));
    }

    @Deactivate
    void deactivate() {
        lines.shutdownNow();
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String token = request.getHeader(TOKEN_HEADER);
        if (tokenDigest == null || token == null || !MessageDigest.isEqual(sha256(token), tokenDigest)) {
            response.sendError(401, "the console asks for the token in the runtime's console.token file");
            return;
        }
        if (!"POST".equals(request.getMethod())) {
            response.sendError(405);
            return;
        }
        String what = request.getPathInfo() == null ? "" : request.getPathInfo();
        switch (what) {
            case "/run" -> run(request, response);
            case "/interrupt" -> {
                Future<?> line = running.get(String.valueOf(request.getParameter("run")));
                if (line != null) {
                    line.cancel(true);
                }
                response.setStatus(204);
            }
            case "/complete" -> {
                String before = body(request);
                List<String> words = Arrays.asList(before.stripLeading().split("\\s+", -1));
                response.setContentType("text/plain");
                response.setCharacterEncoding("UTF-8");
                response.getWriter().print(String.join("\n", completions.candidates(before.isBlank() ? List.of("") : words)));
            }
            default -> response.sendError(404);
        }
    }

    private void run(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String line = body(request);
        String runId = String.valueOf(request.getHeader("X-NNI-Console-Run"));
        response.setStatus(200);
        response.setContentType("application/octet-stream");
        FramedOutput frames = new FramedOutput(response.getOutputStream());
        PrintStream out = new PrintStream(frames.stream('o'), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(frames.stream('e'), true, StandardCharsets.UTF_8);
        // a session per line: Gogo binds a session to its streams, and a line's streams are its answer
        CommandSession session = processor.createSession(System.in, out, err);
        clientSide(request, session);
        CountDownLatch ended = new CountDownLatch(1);
        Future<Integer> ran = lines.submit(() -> {
            try {
                return runner.run(session, line, out, err);
            } finally {
                ended.countDown();
            }
        });
        running.put(runId, ran);
        int code;
        try {
            code = untilDone(ran, frames);
            if (code == LineRunner.INTERRUPTED) {
                err.println("interrupted");
            }
        } catch (java.util.concurrent.CancellationException e) {
            awaitEnd(ended, line);
            err.println("interrupted");
            code = LineRunner.INTERRUPTED;
        } catch (InterruptedException e) {
            ran.cancel(true);
            Thread.currentThread().interrupt();
            return;
        } catch (ExecutionException e) {
            LOG.warn("console line failed", e.getCause());
            code = LineRunner.FAILED;
        } finally {
            running.remove(runId);
            session.close();
        }
        if (!frames.broken()) {
            frames.end(code);
        }
    }

    /** Waits a while for an interrupted line to end, so that its last output comes before the word that says why it ended. */
    private static void awaitEnd(CountDownLatch ended, String line) {
        try {
            if (!ended.await(INTERRUPT_PATIENCE_SECONDS, TimeUnit.SECONDS)) {
                LOG.warn("console line '{}' goes on {} s after it was interrupted", line, INTERRUPT_PATIENCE_SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the client says of itself: its folder ({@value #DIRECTORY_HEADER}, an absolute path, URL-encoded), which
     * becomes the session's current directory so that file arguments are the client's files, and
     * the width of its terminal ({@value #COLUMNS_HEADER}, sent only when its output is one).
     */
    private static void clientSide(HttpServletRequest request, CommandSession session) {
        String directory = request.getHeader(DIRECTORY_HEADER);
        if (directory != null) {
            try {
                Path folder = Path.of(URLDecoder.decode(directory, StandardCharsets.UTF_8));
                if (folder.isAbsolute()) {
                    session.currentDir(folder);
                }
            } catch (IllegalArgumentException e) {
                // not a path of this machine: names stay the runtime's
            }
        }
        String columns = request.getHeader(COLUMNS_HEADER);
        if (columns != null && columns.matches("\\d{1,4}")) {
            // an unknown width (0) is taken as a classic terminal's
            session.put(ClientSide.TERMINAL_COLUMNS, Integer.parseInt(columns) > 0 ? Integer.parseInt(columns) : 80);
        }
    }

    /** @return the line's end code; a client that went away (its output cannot be written) interrupts it */
    private static int untilDone(Future<Integer> ran, FramedOutput frames) throws InterruptedException, ExecutionException {
        while (true) {
            try {
                return ran.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                if (frames.broken()) {
                    ran.cancel(true);
                }
            }
        }
    }

    private static String body(HttpServletRequest request) throws IOException {
        byte[] bytes = request.getInputStream().readNBytes(MAX_LINE_BYTES + 1);
        if (bytes.length > MAX_LINE_BYTES) {
            throw new IOException("a console line of more than " + MAX_LINE_BYTES + " bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
