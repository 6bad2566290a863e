package nni.shell.internal.launch;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Optional;

import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;

/**
 * Where a person finds the web UI: the HTTP port's endpoint and the path the UI bundle announces
 * (service property {@value #PATH_PROPERTY}); nothing while either is missing. A port bound to every
 * address is shown with this machine's name.
 */
@Component(service = WebUiAddress.class)
public class WebUiAddress {

    /** The service property with which the UI bundle says where it is ({@code /ui/}). */
    static final String PATH_PROPERTY = "nni.ui.path";

    private final BundleContext context;

    @Activate
    public WebUiAddress(BundleContext context) {
        this.context = context;
    }

    /** @return the address of the experiment's overview in the web UI, when the UI is installed and the port listens */
    public Optional<String> of(String experimentId) {
        return base().map(base -> base + "#/experiments/" + experimentId);
    }

    /** @return the address of the web UI, when it is installed and the port listens */
    public Optional<String> base() {
        try {
            ServiceReference<?>[] ui = context.getServiceReferences((String) null, "(" + PATH_PROPERTY + "=*)");
            ServiceReference<HttpServiceRuntime> http = context.getServiceReference(HttpServiceRuntime.class);
            if (ui == null || ui.length == 0 || http == null) {
                return Optional.empty();
            }
            Object endpoints = http.getProperty("osgi.http.endpoint");
            Object first = endpoints instanceof String[] array && array.length > 0 ? array[0]
                    : endpoints instanceof List<?> list && !list.isEmpty() ? list.get(0) : endpoints;
            if (first == null) {
                return Optional.empty();
            }
            URI endpoint = URI.create(first.toString());
            String host = endpoint.getHost();
            if ("0.0.0.0".equals(host) || "::".equals(host) || "[::]".equals(host)) {
                host = InetAddress.getLocalHost().getHostName();
            }
            String path = String.valueOf(ui[0].getProperty(PATH_PROPERTY));
            return Optional.of(endpoint.getScheme() + "://" + host + ":" + endpoint.getPort() + path);
        } catch (InvalidSyntaxException | IllegalArgumentException | UnknownHostException e) {
            return Optional.empty();
        }
    }
}
