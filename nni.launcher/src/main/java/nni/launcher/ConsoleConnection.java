package nni.launcher;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;

/**
 * The client's side of the runtime's console ({@code /api/v1/nni-console/} on the runtime's one
 * port): finds a runtime through its home ({@code log/endpoint}), proves it may use it with the
 * home's {@code console.token} (readable by its owner only; plus {@code login.token} when the port
 * asks for a login), runs lines and streams their output, interrupts them, asks for completions.
 */
final class ConsoleConnection {

    /** The client's exit code when no runtime answers. */
    static final int NO_RUNTIME = 4;

    /** Why the runtime cannot be used; the message is for the user. */
    static final class Unreachable extends Exception {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(message, null, false, false);
        }
    }

    private final URI base;
    private final String consoleToken;
    private final String loginToken;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ConsoleConnection(URI base, String consoleToken, String loginToken) {
        this.base = base;
        this.consoleToken = consoleToken;
        this.loginToken = loginToken;
    }

    /** @throws Unreachable when the home has no running runtime, or its token cannot be read */
    static ConsoleConnection of(Path home) throws Unreachable {
        Path endpointFile = home.resolve("log").resolve("endpoint");
        Path tokenFile = home.resolve("console.token");
        String endpoint;
        String token;
        try {
            endpoint = Files.readString(endpointFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new Unreachable("no runtime is running with the home " + home + " (it has no log/endpoint); start one with "
                    + "java -jar nni-osgi.jar --home " + home);
        }
        try {
            token = Files.readString(tokenFile, StandardCharsets.US_ASCII).strip();
        } catch (IOException e) {
            throw new Unreachable("cannot read the console token " + tokenFile + " (" + Main.describe(e)
                    + "): the client must run as the user who started the runtime");
        }
        String login = null;
        Path loginFile = home.resolve("login.token");
        if (Files.isRegularFile(loginFile)) {
            try {
                login = Files.readString(loginFile, StandardCharsets.US_ASCII).strip();
            } catch (IOException e) {
                // the port may not ask for it; if it does, the answer says so
            }
        }
        // a runtime bound to the wildcard address is reached on loopback
        URI uri = URI.create(endpoint.endsWith("/") ? endpoint : endpoint + "/");
        if (uri.getHost() != null && (uri.getHost().equals("0.0.0.0") || uri.getHost().equals("[::]"))) {
            uri = URI.create(uri.getScheme() + "://127.0.0.1:" + uri.getPort() + "/");
        }
        return new ConsoleConnection(uri.resolve("api/v1/nni-console/"), token, login);
    }

    /**
     * Runs one line, printing its output as it comes.
     *
     * @param runId   the id {@link #interrupt} names it by
     * @param columns the width of the terminal {@code out} shows on (0 when not known), or -1 when it is no terminal
     * @return the line's end code: 0 done, 1 failed, 130 interrupted
     */
    int run(String line, String runId, int columns, PrintStream out, PrintStream err)
            throws Unreachable, IOException, InterruptedException {
        // the runtime resolves the line's file names in this folder, the client's (URL-encoded: a header is ASCII)
        HttpRequest.Builder request = request("run").header("X-NNI-Console-Run", runId).header("X-NNI-Console-Directory",
                URLEncoder.encode(Path.of("").toAbsolutePath().toString(), StandardCharsets.UTF_8));
        if (columns >= 0) {
            request.header("X-NNI-Console-Columns", Integer.toString(columns));
        }
        HttpResponse<InputStream> response = send(request
                .POST(HttpRequest.BodyPublishers.ofString(line, StandardCharsets.UTF_8)).build(),
                HttpResponse.BodyHandlers.ofInputStream());
        try (InputStream in = response.body()) {
            if (response.statusCode() != 200) {
                throw refused(response.statusCode(), new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
            while (true) {
                int kind = in.read();
                if (kind < 0) {
                    throw new Unreachable("the runtime stopped answering (it may have stopped)");
                }
                int length = 0;
                for (int c = in.read(); c != ':'; c = in.read()) {
                    if (c < '0' || c > '9') {
                        throw new IOException("the runtime's answer is not the console protocol");
                    }
                    length = length * 10 + (c - '0');
                }
                byte[] data = in.readNBytes(length);
                switch (kind) {
                    case 'o' -> {
                        out.write(data);
                        out.flush();
                    }
                    case 'e' -> {
                        err.write(data);
                        err.flush();
                    }
                    case 'x' -> {
                        return Integer.parseInt(new String(data, StandardCharsets.US_ASCII));
                    }
                    default -> throw new IOException("the runtime's answer is not the console protocol");
                }
            }
        }
    }

    /** Ctrl-C: asks the runtime to interrupt the line that runs as {@code runId}. */
    void interrupt(String runId) {
        try {
            http.send(request("interrupt?run=" + runId).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.discarding());
        } catch (IOException e) {
            // the line ends with the runtime anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the runtime's candidates for the last word of {@code before} (commands, experiment and trial ids) */
    List<String> complete(String before) throws Unreachable, IOException, InterruptedException {
        HttpResponse<String> response = send(request("complete").POST(HttpRequest.BodyPublishers.ofString(before,
                StandardCharsets.UTF_8)).build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        if (response.statusCode() != 200) {
            throw refused(response.statusCode(), response.body());
        }
        return response.body().isEmpty() ? List.of() : List.of(response.body().split("\n"));
    }

    static String newRunId() {
        return UUID.randomUUID().toString();
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(path)).header("X-NNI-Console-Token", consoleToken);
        if (loginToken != null) {
            builder.header("Authorization", "Bearer " + loginToken);
        }
        return builder;
    }

    private <T> HttpResponse<T> send(HttpRequest request, HttpResponse.BodyHandler<T> handler)
            throws Unreachable, IOException, InterruptedException {
        try {
            return http.send(request, handler);
        } catch (ConnectException e) {
            throw new Unreachable("the runtime at " + base.resolve("/") + " does not answer (it may have stopped)");
        }
    }

    private Unreachable refused(int status, String body) {
        if (status == 401) {
            return new Unreachable("the runtime refused the console token (was it restarted with another home?)");
        }
        if (status == 404) {
            return new Unreachable("the runtime at " + base.resolve("/") + " has no console (yet): it may still be starting");
        }
        return new Unreachable("the runtime answered " + status + (body.isBlank() ? "" : ": " + body.strip()));
    }
}
