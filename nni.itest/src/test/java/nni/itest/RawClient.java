package nni.itest;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;

/**
 * One HTTP/1.1 connection written by hand, as hostile or careless clients write them: from a
 * chosen loopback source address, headers first, the body in pieces at the client's own pace.
 */
public final class RawClient implements AutoCloseable {

    /** An answer as read off the wire: status line and headers as text, and the body. */
    public record Answer(int status, String head, String body) {
        public boolean closes() {
            return head.toLowerCase(Locale.ROOT).contains("\nconnection: close");
        }

        @Override
        public String toString() {
            return head + "\n" + body;
        }
    }

    private final Socket socket;
    private final URI endpoint;
    /** Buffered: an answer's head read a byte at a time from the socket cost a system call per byte. */
    private final InputStream in;

    private RawClient(Socket socket, URI endpoint) throws IOException {
        this.socket = socket;
        this.endpoint = endpoint;
        this.in = new BufferedInputStream(socket.getInputStream());
    }

    /** Connects from {@code source} (any address of 127.0.0.0/8) to the endpoint. */
    public static RawClient connect(URI endpoint, String source, Duration readTimeout) throws IOException {
        Socket socket = new Socket();
        socket.bind(new InetSocketAddress(InetAddress.getByName(source), 0));
        socket.connect(new InetSocketAddress(endpoint.getHost(), endpoint.getPort()), 5_000);
        socket.setSoTimeout((int) readTimeout.toMillis());
        socket.setTcpNoDelay(true);
        return new RawClient(socket, endpoint);
    }

    /** Writes a request head; {@code headers} are extra lines such as {@code "Content-Length: 10"}. */
    public RawClient head(String method, String path, String... headers) throws IOException {
        StringBuilder head = new StringBuilder(method).append(' ').append(path.startsWith("/") ? path : "/" + path)
                .append(" HTTP/1.1\r\nHost: ").append(endpoint.getHost()).append(':').append(endpoint.getPort()).append("\r\n");
        for (String header : headers) {
            head.append(header).append("\r\n");
        }
        return write(head.append("\r\n").toString());
    }

    public RawClient write(String text) throws IOException {
        return write(text.getBytes(StandardCharsets.UTF_8));
    }

    public RawClient write(byte[] bytes) throws IOException {
        return write(bytes, bytes.length);
    }

    /** Writes the first {@code length} bytes of {@code bytes} in one write. */
    public RawClient write(byte[] bytes, int length) throws IOException {
        OutputStream out = socket.getOutputStream();
        out.write(bytes, 0, length);
        out.flush();
        return this;
    }

    /** A whole request with a body of known length. */
    public Answer exchange(String method, String path, String body, String... headers) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        String[] all = java.util.Arrays.copyOf(headers, headers.length + 1);
        all[headers.length] = "Content-Length: " + bytes.length;
        head(method, path, all).write(bytes);
        return read();
    }

    /**
     * Reads one answer.
     *
     * @throws SocketTimeoutException when none arrives within the read timeout
     * @throws EOFException when the server closed the connection without one
     */
    public Answer read() throws IOException {
        StringBuilder head = new StringBuilder();
        long length = 0;
        boolean chunked = false;
        String status = readLine(in);
        if (status.isEmpty()) {
            throw new EOFException("the server sent an empty line instead of a status line");
        }
        head.append(status).append('\n');
        for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
            head.append(line).append('\n');
            String lower = line.toLowerCase(Locale.ROOT);
            if (lower.startsWith("content-length:")) {
                length = Long.parseLong(line.substring("content-length:".length()).trim());
            } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        if (chunked) {
            for (int size = Integer.parseInt(readLine(in).trim(), 16); size > 0; size = Integer.parseInt(readLine(in).trim(), 16)) {
                body.write(in.readNBytes(size));
                readLine(in);
            }
            readLine(in);
        } else {
            body.write(in.readNBytes((int) length));
        }
        return new Answer(Integer.parseInt(status.split(" ")[1]), head.toString(), body.toString(StandardCharsets.UTF_8));
    }

    /**
     * Writes {@code piece} every {@code period} on a thread of its own while this thread waits for
     * the answer, as a client streaming a body reads the server's answer meanwhile.
     */
    public Answer readWhileSending(byte[] piece, Duration period, int times) throws IOException {
        Thread writer = new Thread(() -> {
            try {
                for (int i = 0; i < times; i++) {
                    write(piece);
                    Thread.sleep(period.toMillis());
                }
            } catch (IOException | InterruptedException closedOrDone) {
                // the server answered and closed, or the test is over
            }
        }, "raw-client-writer");
        writer.setDaemon(true);
        writer.start();
        try {
            return read();
        } finally {
            writer.interrupt();
        }
    }

    /** @return true when the server has closed the connection (reads end of stream) within the read timeout */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) {
                throw new EOFException("the server closed the connection; read so far: " + line);
            }
            if (c != '\r') {
                line.write(c);
            }
        }
        return line.toString(StandardCharsets.US_ASCII);
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException e) {
            // closing a connection the server may have reset already
        }
    }
}
