package nni.itest.keeper;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;

/**
 * A stand-in for the manager's endpoint that answers what a test tells it to, for the answers a real
 * manager does not give (5xx, bodies that are not JSON, acknowledgements that make no sense, a refusal
 * in the middle of a run). HTTP/1.1 with keep-alive on loopback; every request is recorded with the
 * time it arrived.
 */
public final class FakeManager implements AutoCloseable {

    /** One request as received. */
    public record Request(long nanos, String method, String path, String body) {
    }

    /** One answer: status and body. */
    public record Answer(int status, String body) {
    }

    private final ServerSocket server;
    private final Function<Request, Answer> answers;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    public final List<Request> requests = new CopyOnWriteArrayList<>();

    public FakeManager(Function<Request, Answer> answers) throws IOException {
        this.answers = answers;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "fake-manager");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    public String url() {
        return "http://127.0.0.1:" + server.getLocalPort() + "/";
    }

    /** @return the requests whose path contains {@code route}, in arrival order */
    public List<Request> requests(String route) {
        return requests.stream().filter(r -> r.path().contains(route)).toList();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket socket = server.accept();
                sockets.add(socket);
                Thread connection = new Thread(() -> serve(socket), "fake-manager-connection");
                connection.setDaemon(true);
                connection.start();
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void serve(Socket socket) {
        try (socket; InputStream in = socket.getInputStream(); OutputStream out = socket.getOutputStream()) {
            while (true) {
                String requestLine = line(in);
                if (requestLine == null) {
                    return;
                }
                long length = 0;
                for (String header = line(in); header != null && !header.isEmpty(); header = line(in)) {
                    if (header.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
                        length = Long.parseLong(header.substring("content-length:".length()).trim());
                    }
                }
                String body = new String(in.readNBytes((int) length), StandardCharsets.UTF_8);
                String[] parts = requestLine.split(" ");
                Request request = new Request(System.nanoTime(), parts[0], parts[1], body);
                requests.add(request);
                Answer answer = answers.apply(request);
                byte[] bytes = answer.body().getBytes(StandardCharsets.UTF_8);
                out.write(("HTTP/1.1 " + answer.status() + " Fake\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
                        + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bytes);
                out.flush();
            }
        } catch (IOException e) {
            // the keeper went away
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                if (line.size() == 0) {
                    return null;
                }
                throw new EOFException();
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket socket : sockets) {
            socket.close();
        }
    }
}
