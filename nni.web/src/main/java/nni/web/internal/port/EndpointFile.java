package nni.web.internal.port;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;

import jakarta.servlet.Servlet;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the runtime's HTTP endpoint (e.g. {@code http://127.0.0.1:41234/}) to
 * {@code <home>/log/endpoint}, so that scripts, tests and people find the port chosen with
 * {@code --port 0}, once NNI's REST API is served there. Removed when the HTTP runtime goes away.
 */
@Component(immediate = true, service = {})
public class EndpointFile {

    private static final Logger LOG = LoggerFactory.getLogger(EndpointFile.class);
    private static final String HOME = "nni.home";

    private final Path file;

    /**
     * @param api the REST API's servlet: the file is written once the API answers there (it waits
     *            for the port's login), so that whoever reads the file finds the routes
     */
    @Activate
    public EndpointFile(BundleContext context, @Reference(service = HttpServiceRuntime.class) Map<String, Object> runtime,
                        @Reference(target = "(osgi.http.whiteboard.servlet.name=nni-api)") Servlet api) {
        String home = context.getProperty(HOME);
        this.file = home == null ? null : Path.of(home, "log", "endpoint");
        write(runtime);
    }

    @Modified
    void modified(Map<String, Object> runtime) {
        write(runtime);
    }

    @Deactivate
    void deactivate() {
        if (file != null) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                LOG.debug("cannot remove {}", file, e);
            }
        }
    }

    private void write(Map<String, Object> runtime) {
        Object endpoint = runtime.get("osgi.http.endpoint");
        if (endpoint instanceof String[] endpoints && endpoints.length > 0) {
            endpoint = endpoints[0];
        } else if (endpoint instanceof java.util.Collection<?> endpoints && !endpoints.isEmpty()) {
            endpoint = endpoints.iterator().next();
        }
        if (file == null || endpoint == null) {
            return;
        }
        try {
            Files.createDirectories(file.getParent());
            Path temporary = file.resolveSibling("endpoint.tmp");
            Files.writeString(temporary, endpoint + "\n");
            Files.move(temporary, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            LOG.info("NNI REST API at {}api/v1/nni/ (written to {})", endpoint, file);
        } catch (IOException e) {
            LOG.warn("cannot write the endpoint to {}: {}", file, e.getMessage());
        }
    }
}
