package nni.shell.internal.launch;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.util.Map;
import java.util.Optional;

import jakarta.servlet.Servlet;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;

/**
 * The runtime started without a command ({@code java -jar nni-osgi.jar}) says where its web UI is,
 * once the UI and the HTTP port serve: its start is otherwise quiet (the log is in
 * {@code log/nni.log}). A one-shot command prints its own lines ({@code run} prints the
 * experiment's address).
 */
@Component(immediate = true, service = {})
public class WebUiAnnouncement {

    /** The process's standard output: the log's console handler is not where a user looks for one line. */
    private static final PrintStream OUT = new PrintStream(new FileOutputStream(FileDescriptor.out), true);

    private final WebUiAddress address;
    private final boolean announce;
    private Optional<String> announced = Optional.empty();

    /** @param ui the web UI's servlet: with the HTTP runtime ({@link #bindRuntime}), the address is there */
    @Activate
    public WebUiAnnouncement(BundleContext context, @Reference WebUiAddress address,
                             @Reference(target = "(nni.ui.path=*)") Servlet ui) {
        this.address = address;
        String command = context.getProperty(LaunchCommandRunner.COMMAND);
        this.announce = command == null || command.isBlank();
        announce();
    }

    @Reference(service = HttpServiceRuntime.class, updated = "runtimeUpdated")
    void bindRuntime(Map<String, Object> runtime) {
        // the address is read when the component activates
    }

    /** The HTTP runtime's endpoint changed (a port chosen by the system, a new configuration): the new address. */
    void runtimeUpdated(Map<String, Object> runtime) {
        announce();
    }

    private synchronized void announce() {
        if (!announce) {
            return;
        }
        Optional<String> now = address.base();
        if (now.isPresent() && !now.equals(announced)) {
            OUT.println("web UI: " + now.get());
            announced = now;
        }
    }
}
