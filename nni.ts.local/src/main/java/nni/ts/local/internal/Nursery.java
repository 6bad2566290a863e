package nni.ts.local.internal;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one child process of this JVM that starts and reaps every trial of a session, so that a
 * running trial costs no thread here: the JDK keeps a "process reaper" thread blocked in
 * {@code waitpid} for each live child, which made 1,000 running trials 1,000 threads.
 *
 * <p>The nursery is a bash in a session of its own reading {@code <id> <script>} lines; for each it
 * sources the script in a background subshell (a fork, not a new bash: bash reaps its finished
 * background jobs by itself). A script (see {@link LocalSession}'s launch script) starts the trial
 * in a process group of its own (whose id is the trial's pid), prints {@code <id> <pid>}, waits for
 * the trial and writes its exit
 * status to the trial's exit file, which the session's inotify watch sees. The scripts and the
 * nursery are outside the trials' process groups, so cancelling a trial does not reach them, and
 * they outlive this runtime (even {@code kill -9}): when its input ends the nursery waits for its
 * scripts, so exit files are written for the trials a resumed runtime takes back.
 *
 * <p>Starts are pipelined: a request is one line written, its answer comes later on the reader's
 * thread, so any number of starts are in flight at once and a slow start (a loaded machine) holds
 * up no other. Costs two threads of this JVM per nursery (the JDK's reaper of the nursery, and the
 * reader of its answers), whatever the number of trials. Thread-safe.
 */
final class Nursery implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Nursery.class);
    /** Reads requests; its argument ({@code $1}) is a hook sourced before each script, or empty. */
    private static final String LOOP = "hook=$1\n"
            + "while IFS=' ' read -r id script; do\n"
            + "  ( if [ -n \"$hook\" ]; then . \"$hook\" \"$id\"; fi\n"
            + "    . \"$script\" \"$id\" || echo \"$id failed with exit code $?\" ) </dev/null &\n"
            + "done\n"
            + "wait\n";

    private final Process process;
    private final OutputStream requests;
    private final Map<Long, CompletableFuture<Long>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Thread reader;
    private final String name;
    /** Set by the reader when the nursery's answers end, before it fails the pending starts. */
    private volatile boolean ended;

    /**
     * Starts the nursery in {@code directory}; it and the trials inherit this JVM's environment.
     *
     * @param startHook a bash script sourced, with the request id as its argument, in the subshell
     *                  of each start before its script, or null (the tests hold starts with one)
     */
    Nursery(File directory, String name, Path startHook) throws IOException {
        this.name = name;
        List<String> command = List.of("setsid", "bash", "-c", LOOP, "nni-nursery", startHook == null ? "" : startHook.toString());
        this.process = new ProcessBuilder(command).directory(directory).redirectErrorStream(true).start();
        this.requests = process.getOutputStream();
        this.reader = new Thread(this::readAnswers, name);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    /**
     * Asks the nursery to source {@code script} (bash) in a subshell with a request id as its argument, and returns
     * without waiting: any number of starts may be in flight at once, each answer matched to its
     * request by the id. The answer completes on the nursery's reader thread, so what depends on it
     * must be short.
     *
     * @return the pid the script reports ({@code <id> <pid>}), or an {@link IOException} when the
     *         script failed before reporting or the nursery ended first
     * @throws IOException when the request cannot be made: a line break in the path, or the nursery
     *         is gone
     */
    CompletableFuture<Long> start(Path script) throws IOException {
        String path = script.toString();
        if (path.indexOf('\n') >= 0) {
            throw new IOException("the path " + path.replace("\n", "\\n") + " contains a line break");
        }
        long id = ids.incrementAndGet();
        CompletableFuture<Long> answer = new CompletableFuture<>();
        pending.put(id, answer);
        answer.whenComplete((pid, error) -> pending.remove(id));
        try {
            synchronized (requests) {
                requests.write((id + " " + path + "\n").getBytes(StandardCharsets.UTF_8));
                requests.flush();
            }
        } catch (IOException e) {
            pending.remove(id);
            throw new IOException("the process that starts trials does not take requests: " + e.getMessage(), e);
        }
        if (ended) { // its answers ended while the request was made: none will come
            answer.completeExceptionally(new IOException("the process that starts trials has ended"));
        }
        return answer;
    }

    private void readAnswers() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] words = line.split(" ", 2);
                CompletableFuture<Long> answer = words.length == 2 && words[0].matches("\\d+")
                        ? pending.get(Long.parseLong(words[0])) : null;
                if (answer == null) {
                    if (!line.isBlank()) {
                        LOG.warn("{}: {}", name, line);
                    }
                } else if (words[1].matches("\\d+")) {
                    answer.complete(Long.parseLong(words[1]));
                } else {
                    answer.completeExceptionally(new IOException(words[1]));
                }
            }
        } catch (IOException e) {
            LOG.debug("{}: reading its answers ended: {}", name, e.getMessage());
        }
        ended = true;
        IOException gone = new IOException("the process that starts trials has ended");
        pending.values().forEach(answer -> answer.completeExceptionally(gone));
    }

    /**
     * Ends the nursery's input: it starts nothing more and exits once every trial it started has
     * ended and its exit status is written. Running trials are not touched. Idempotent.
     */
    @Override
    public void close() {
        try {
            synchronized (requests) {
                requests.close();
            }
        } catch (IOException e) {
            LOG.debug("{}: closing its input failed: {}", name, e.getMessage());
        }
    }
}
