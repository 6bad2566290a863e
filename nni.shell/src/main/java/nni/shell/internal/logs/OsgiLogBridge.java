package nni.shell.internal.logs;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.log.LogService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What bundles log through the OSGi Log Service (SCR's component failures among them) also goes to
 * the runtime's log ({@code log/nni.log}), under the bundle's symbolic name; the Felix log reader
 * keeps it for {@code log} in the console too. The framework's own event records (a bundle
 * started, a service registered) are debug lines.
 */
@Component(immediate = true)
public class OsgiLogBridge implements LogListener {

    private final LogReaderService reader;

    @Activate
    public OsgiLogBridge(@Reference LogReaderService reader) {
        this.reader = reader;
        reader.addLogListener(this);
    }

    @Deactivate
    void deactivate() {
        reader.removeLogListener(this);
    }

    @Override
    @SuppressWarnings("deprecation") // getLevel: the Log 1.3 view, which every Log Service version gives
    public void logged(LogEntry entry) {
        String source = entry.getBundle() == null ? "osgi" : entry.getBundle().getSymbolicName();
        Logger logger = LoggerFactory.getLogger(source == null ? "osgi" : source);
        String message = String.valueOf(entry.getMessage());
        Throwable failure = entry.getException();
        boolean event = message.startsWith("BundleEvent ") || message.startsWith("ServiceEvent ") || message.startsWith("FrameworkEvent ");
        if (event && entry.getLevel() >= LogService.LOG_INFO) {
            logger.debug(message, failure);
            return;
        }
        switch (entry.getLevel()) {
            case LogService.LOG_ERROR -> logger.error(message, failure);
            case LogService.LOG_WARNING -> logger.warn(message, failure);
            case LogService.LOG_INFO -> logger.info(message, failure);
            default -> logger.debug(message, failure);
        }
    }
}
