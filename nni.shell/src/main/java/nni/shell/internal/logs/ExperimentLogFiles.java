package nni.shell.internal.logs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.FileHandler;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.slf4j.LoggerFactory;

import nni.api.experiment.ExperimentInfo;
import nni.api.experiment.ExperimentListener;
import nni.api.experiment.ExperimentService;

/**
 * Each open experiment's own log, as NNI keeps one: {@code <experiment>/log/nnimanager.log}, what
 * the runtime logs about that experiment (records that name its id, and whatever its own thread
 * logs), in {@code nni.log}'s format. Other processes of an experiment (NNI's dispatcher) write
 * their logs beside it, in {@link #folder}. It hears the experiments on the {@link ExperimentListener}
 * whiteboard, told of an opening on the thread that opens the experiment, before its own thread logs.
 */
@Component(immediate = true, service = {ExperimentLogFiles.class, ExperimentListener.class})
public class ExperimentLogFiles implements ExperimentListener {

    /** The manager log's name in the experiment's log folder, NNI's. */
    public static final String MANAGER_LOG = "nnimanager.log";

    private final Map<String, Handler> handlers = new ConcurrentHashMap<>();

    @Activate
    public ExperimentLogFiles(@Reference ExperimentService experiments) {
        experiments.list().forEach(this::experimentChanged); // those opened before this component
    }

    @Deactivate
    void deactivate() {
        handlers.keySet().forEach(this::detach);
    }

    /** @return an experiment's log folder, {@code <experiment>/log}, created when missing */
    public static Path folder(Path experimentDirectory) throws IOException {
        return Files.createDirectories(experimentDirectory.resolve("log"));
    }

    /** Opened (the first time it is told of the experiment), or changed: then its log is open already. */
    @Override
    public void experimentChanged(ExperimentInfo experiment) {
        String id = experiment.id();
        if (handlers.containsKey(id)) {
            return;
        }
        try {
            FileHandler file = new FileHandler(folder(experiment.directory()).resolve(MANAGER_LOG).toString()
                    .replace("%", "%%"), 0, 1, true);
            file.setLevel(Level.INFO);
            file.setFormatter(new LineFormatter());
            String thread = "nni-experiment-" + id;
            file.setFilter(record -> Thread.currentThread().getName().equals(thread)
                    || (record.getMessage() != null && record.getMessage().contains(id)));
            if (handlers.putIfAbsent(id, file) != null) {
                file.close(); // told twice at once (opened, and listed by the constructor)
                return;
            }
            Logger.getLogger("").addHandler(file);
        } catch (IOException e) {
            LoggerFactory.getLogger(ExperimentLogFiles.class).warn("experiment {}: cannot write its {}: {}", id, MANAGER_LOG,
                    e.getMessage());
        }
    }

    @Override
    public void experimentClosed(String experimentId, boolean stopped) {
        detach(experimentId);
    }

    private void detach(String id) {
        Handler handler = handlers.remove(id);
        if (handler != null) {
            Logger.getLogger("").removeHandler(handler);
            handler.close();
        }
    }

    /** {@code nni.log}'s line: time, level, logger, message, and a failure's stack trace. */
    private static final class LineFormatter extends Formatter {
        @Override
        public String format(LogRecord record) {
            String failure = "";
            if (record.getThrown() != null) {
                java.io.StringWriter trace = new java.io.StringWriter();
                record.getThrown().printStackTrace(new java.io.PrintWriter(trace));
                failure = System.lineSeparator() + trace;
            }
            return String.format("%1$tF %1$tT.%1$tL %2$-7s [%3$s] %4$s%5$s%n", record.getInstant().atZone(java.time.ZoneId.systemDefault()),
                    record.getLevel().getLocalizedName(), record.getLoggerName(), formatMessage(record), failure);
        }
    }
}
