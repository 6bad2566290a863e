package nni.http;

import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Designate;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads request bodies on the shared port so that a slow or hostile client costs no thread: a body
 * is read with the servlet container's asynchronous reads (a {@link ReadListener} called when bytes
 * arrive; no thread waits in between), within a size cap, a deadline for the whole body and the
 * container's idle timeout ({@code org.apache.felix.http.timeout}), and only so many bodies at once
 * from one client address. A request refused before its body was read is answered at once; what
 * the client still sends is then read and dropped in the same way, up to a small limit and for a
 * short while, so that a well-behaved client keeps its connection and a slow one loses it.
 *
 * <p>Limits are the configuration {@code nni.manager.http} (for example
 * {@code etc/nni.manager.http.cfg}); they are also this service's properties. Thread-safe.
 */
@Component(service = RequestBodies.class, configurationPid = RequestBodies.PID,
        configurationPolicy = ConfigurationPolicy.OPTIONAL)
@Designate(ocd = RequestBodies.Config.class)
public class RequestBodies {

    static final String PID = "nni.manager.http";
    private static final Logger LOG = LoggerFactory.getLogger(RequestBodies.class);

    @ObjectClassDefinition(name = "NNI HTTP request bodies", description = "How request bodies are read on the shared port")
    public @interface Config {
        @AttributeDefinition(description = "Largest request body read on the REST routes, in bytes; larger ones get 413")
        int max_body_bytes() default 4 << 20;

        @AttributeDefinition(description = "Longest a request body may take to arrive, in milliseconds; then 408")
        int body_deadline_millis() default 30_000;

        @AttributeDefinition(description = "Most request bodies read at once from one client address; more get 503")
        int max_body_reads_per_address() default 64;

        @AttributeDefinition(description = "Most of a refused request's body read and dropped to keep its connection, in bytes")
        int drain_max_bytes() default 1 << 20;

        @AttributeDefinition(description = "Longest a refused request's body is waited for before its connection is closed, in milliseconds")
        int drain_millis() default 5_000;
    }

    /** Receives a body read in full, on a container thread, and writes the answer. */
    @FunctionalInterface
    public interface BodyAnswer {
        void answer(byte[] body) throws IOException;
    }

    /**
     * Receives a body read in full, lent for the call: the first {@code length} bytes of
     * {@code buffer}, which is reused for another request once this returns.
     */
    @FunctionalInterface
    public interface LentBodyAnswer {
        void answer(byte[] buffer, int length) throws IOException;
    }

    private record Limits(int maxBodyBytes, int deadlineMillis, int perAddress, int drainBytes, int drainMillis) {
        static Limits of(Config config) {
            return new Limits(atLeastOne("max.body.bytes", config.max_body_bytes(), 4 << 20),
                    atLeastOne("body.deadline.millis", config.body_deadline_millis(), 30_000),
                    atLeastOne("max.body.reads.per.address", config.max_body_reads_per_address(), 64),
                    atLeastOne("drain.max.bytes", config.drain_max_bytes(), 1 << 20),
                    atLeastOne("drain.millis", config.drain_millis(), 5_000));
        }

        private static int atLeastOne(String name, int value, int fallback) {
            if (value >= 1) {
                return value;
            }
            LOG.error("{}: {}: expected a number >= 1, got {}; using {}", PID, name, value, fallback);
            return fallback;
        }
    }

    /** The most allocated for a body before its bytes arrive (what the read buffer alone used to take). */
    private static final int INITIAL_BODY_BYTES = 16 << 10;

    /**
     * Buffers lent to bodies of up to their size, and how many are kept between requests: a keeper's
     * batch of 50 metrics is about 13 KB, and its bytes were an eighth of what the report route
     * allocated. A larger body reads into an array of its own, which is not kept.
     */
    static final int LENT_BUFFER_BYTES = 64 << 10;
    private static final int LENT_BUFFERS_KEPT = 8;

    private final ArrayBlockingQueue<byte[]> lentBuffers = new ArrayBlockingQueue<>(LENT_BUFFERS_KEPT);
    private volatile Limits limits;
    private final ConcurrentHashMap<String, AtomicInteger> reading = new ConcurrentHashMap<>();

    @Activate
    public RequestBodies(Config config) {
        this.limits = Limits.of(config);
    }

    @Modified
    void modified(Config config) {
        this.limits = Limits.of(config);
    }

    /** @return the size cap of bodies on routes that set none of their own */
    public int maxBodyBytes() {
        return limits.maxBodyBytes();
    }

    /**
     * Reads a request's body without holding a thread while it arrives, then calls {@code answer}
     * with it. Answers the request itself when the body is too large (413), takes too long (408),
     * cannot be read (400), or when its address has too many bodies being read (503); those close
     * the connection.
     */
    public void read(HttpServletRequest request, HttpServletResponse response, long maxBytes, BodyAnswer answer)
            throws IOException {
        read(request, response, maxBytes, false,
                (buffer, length) -> answer.answer(length == buffer.length ? buffer : Arrays.copyOf(buffer, length)));
    }

    /**
     * Reads a request's body as {@link #read} does, with the same answers, into a buffer lent to
     * {@code answer} for the call and reused afterwards: for handlers that keep none of the bytes.
     */
    public void readLent(HttpServletRequest request, HttpServletResponse response, long maxBytes, LentBodyAnswer answer)
            throws IOException {
        read(request, response, maxBytes, true, answer);
    }

    private void read(HttpServletRequest request, HttpServletResponse response, long maxBytes, boolean lent,
                      LentBodyAnswer answer) throws IOException {
        long declared = request.getContentLengthLong();
        if (declared > maxBytes) {
            closing(response, new HttpError(413, "request body of " + declared + " bytes is over the limit of " + maxBytes));
            return;
        }
        if (!hasBody(request)) {
            answer.answer(new byte[0], 0);
            return;
        }
        Limits now = limits;
        String address = request.getRemoteAddr();
        if (!acquire(address, now)) {
            LOG.info("refused a request body from {}: {} bodies from that address are being read", address, now.perAddress());
            closing(response, new HttpError(503, "too many requests from " + address + " are sending their body at once (at most "
                    + now.perAddress() + "); try again"));
            return;
        }
        try {
            AsyncContext async = request.startAsync();
            async.setTimeout(now.deadlineMillis());
            BodyRead read = new BodyRead(async, request.getInputStream(), response, declared, maxBytes, now.deadlineMillis(), answer,
                    address, lent ? lendBuffer(declared) : null);
            async.addListener(read);
            read.in.setReadListener(read);
        } catch (IOException | RuntimeException e) {
            release(address);
            throw e;
        }
    }

    /**
     * Answers a request refused before its body was read, at once. When a body is on its way, it is
     * read and dropped afterwards (within the drain limits) so that the connection stays usable;
     * a body too large, too slow or from an address with too many bodies in flight closes it.
     */
    public void refuse(HttpServletRequest request, HttpServletResponse response, HttpError error) throws IOException {
        if (!hasBody(request)) {
            error.send(response);
            return;
        }
        Limits now = limits;
        String address = request.getRemoteAddr();
        if (request.getContentLengthLong() > now.drainBytes() || !acquire(address, now)) {
            closing(response, error);
            return;
        }
        try {
            AsyncContext async = request.startAsync();
            async.setTimeout(now.drainMillis());
            error.send(response);
            response.flushBuffer();
            Drain drain = new Drain(async, request.getInputStream(), now.drainBytes(), address);
            async.addListener(drain);
            drain.in.setReadListener(drain);
        } catch (IOException | RuntimeException e) {
            release(address);
            throw e;
        }
    }

    /** @return a kept buffer for a body of {@code declared} bytes (-1: unknown), or null when it is larger */
    private byte[] lendBuffer(long declared) {
        if (declared > LENT_BUFFER_BYTES) {
            return null;
        }
        byte[] kept = lentBuffers.poll();
        return kept != null ? kept : new byte[LENT_BUFFER_BYTES];
    }

    /** Keeps a lent buffer for the next body, unless enough are kept already or the body outgrew it. */
    private void giveBack(byte[] buffer) {
        if (buffer.length == LENT_BUFFER_BYTES) {
            lentBuffers.offer(buffer);
        }
    }

    private static boolean hasBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader("Transfer-Encoding") != null;
    }

    private static void closing(HttpServletResponse response, HttpError error) throws IOException {
        response.setHeader("Connection", "close");
        error.send(response);
    }

    private boolean acquire(String address, Limits now) {
        AtomicInteger count = reading.computeIfAbsent(address, a -> new AtomicInteger());
        while (true) {
            int current = count.get();
            if (current >= now.perAddress()) {
                return false;
            }
            if (count.compareAndSet(current, current + 1)) {
                return true;
            }
        }
    }

    private void release(String address) {
        reading.computeIfPresent(address, (a, count) -> count.decrementAndGet() <= 0 ? null : count);
    }

    private static String describe(Throwable failure) {
        String message = failure.getMessage();
        return message == null || message.isBlank() ? "the connection failed" : message;
    }

    /**
     * A body read asynchronously, one per request: every callback holds the object's lock, so they
     * never overlap; the address's count is released once the exchange is complete, whatever ended it.
     */
    private abstract class AsyncBody implements ReadListener, AsyncListener {
        final AsyncContext async;
        final ServletInputStream in;
        private final String address;
        boolean done;

        AsyncBody(AsyncContext async, ServletInputStream in, String address) {
            this.async = async;
            this.in = in;
            this.address = address;
        }

        /** Takes bytes as they come, until the end of the body or {@link #done}. */
        @Override
        public synchronized void onDataAvailable() throws IOException {
            while (!done && in.isReady()) {
                if (!readSome()) {
                    return; // onAllDataRead follows
                }
            }
        }

        /** Reads what is ready. @return false at the end of the body */
        abstract boolean readSome() throws IOException;

        @Override
        public void onComplete(AsyncEvent event) {
            release(address);
        }

        @Override
        public void onError(AsyncEvent event) {
            // onComplete follows
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // not restarted
        }
    }

    /**
     * One body being read for a handler, read straight into the array handed over (a keeper's
     * report batch used to be copied three times on its way in, a quarter of what the report route
     * allocated): of the declared length when that is small, else growing as the bytes arrive, so
     * that a client declaring megabytes it never sends costs no more than what it sent. A lent
     * buffer is given back when the body was answered or refused.
     */
    private final class BodyRead extends AsyncBody {
        private final HttpServletResponse response;
        private final long declared;
        private final long maxBytes;
        private final int deadlineMillis;
        private final LentBodyAnswer answer;
        private final byte[] lent;
        private byte[] body;
        private int length;

        /**
         * @param declared the body's declared length ({@code <= maxBytes}), or -1
         * @param lent     a buffer to read into and give back, or null for an array of the body's own
         */
        BodyRead(AsyncContext async, ServletInputStream in, HttpServletResponse response, long declared, long maxBytes,
                 int deadlineMillis, LentBodyAnswer answer, String address, byte[] lent) {
            super(async, in, address);
            this.response = response;
            this.declared = declared;
            this.maxBytes = maxBytes;
            this.deadlineMillis = deadlineMillis;
            this.answer = answer;
            this.lent = lent;
            this.body = lent != null ? lent : new byte[(int) Math.min(declared >= 0 ? declared : maxBytes + 1, INITIAL_BODY_BYTES)];
        }

        @Override
        boolean readSome() throws IOException {
            if (length == readable()) {
                if (length == declared) { // the whole body is here: what follows must be its end
                    if (in.read() < 0) {
                        return false;
                    }
                    finish(HttpError.badRequest("request body is longer than its Content-Length"));
                    return true;
                }
                body = Arrays.copyOf(body, (int) Math.min(declared >= 0 ? declared : maxBytes + 1, body.length * 2L));
            }
            int read = in.read(body, length, readable() - length);
            if (read < 0) {
                return false;
            }
            length += read;
            if (length > maxBytes) {
                finish(new HttpError(413, "request body is over the limit of " + maxBytes + " bytes"));
            }
            return true;
        }

        /**
         * Gives a lent buffer back once {@link #done} is set: no callback reads into it after that (they
         * all hold this object's lock), and the handler has returned. An exchange ended otherwise (the
         * container gave up on it) leaves its buffer to the collector.
         */
        private void giveBackLent() {
            if (lent != null && body != null) {
                giveBack(body);
                body = null;
            }
        }

        /** @return how much of the array this body may fill: up to its declared length, or one byte over the cap */
        private int readable() {
            return (int) Math.min(declared >= 0 ? declared : maxBytes + 1, body.length);
        }

        @Override
        public synchronized void onAllDataRead() throws IOException {
            if (done) {
                return;
            }
            done = true;
            try {
                answer.answer(body, length);
            } finally {
                giveBackLent();
                async.complete();
            }
        }

        @Override
        public synchronized void onError(Throwable failure) {
            if (!done) {
                finish(failure instanceof TimeoutException ? timedOut()
                        : HttpError.badRequest("the request body could not be read: " + describe(failure)));
            }
        }

        @Override
        public synchronized void onTimeout(AsyncEvent event) {
            if (!done) {
                finish(timedOut());
            }
        }

        private HttpError timedOut() {
            return new HttpError(408, "the request body did not arrive within " + deadlineMillis + " ms");
        }

        /** Answers with an error and ends the exchange; the unread rest of the body closes the connection. */
        private void finish(HttpError error) {
            done = true;
            giveBackLent();
            try {
                if (!response.isCommitted()) {
                    closing(response, error);
                }
            } catch (IOException | RuntimeException e) {
                LOG.debug("cannot answer a request whose body failed: {}", e.toString());
            } finally {
                async.complete();
            }
        }
    }

    /** The body of a refused request, read and dropped after the answer was sent. */
    private final class Drain extends AsyncBody {
        private final byte[] buffer = new byte[16 << 10];
        private long left;

        Drain(AsyncContext async, ServletInputStream in, long maxBytes, String address) {
            super(async, in, address);
            this.left = maxBytes;
        }

        @Override
        boolean readSome() throws IOException {
            int read = in.read(buffer);
            if (read < 0) {
                return false;
            }
            left -= read;
            if (left < 0) {
                end();
            }
            return true;
        }

        @Override
        public synchronized void onAllDataRead() {
            end();
        }

        @Override
        public synchronized void onError(Throwable failure) {
            end();
        }

        @Override
        public synchronized void onTimeout(AsyncEvent event) {
            end();
        }

        private void end() {
            if (!done) {
                done = true;
                async.complete();
            }
        }
    }
}
