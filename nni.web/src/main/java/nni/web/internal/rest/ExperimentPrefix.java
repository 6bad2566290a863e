package nni.web.internal.rest;

import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;

/**
 * A request to one experiment's own address, {@code /experiments/<id>/api/v1/nni/<route>}: NNI's
 * REST API with the URL prefix {@code experiments/<id>} (NNI serves its API under a prefix given
 * with {@code --url-prefix}; the registry publishes this one as the experiment's {@code prefixUrl}).
 * Seen by the routes as {@code /api/v1/nni/<route>?experiment_id=<id>}.
 */
final class ExperimentPrefix extends HttpServletRequestWrapper {

    /** The servlet pattern's fixed part; the registry's prefixUrl is {@code experiments/<id>}. */
    static final String SERVLET_PATH = "/experiments";
    static final String EXPERIMENT_PARAMETER = "experiment_id";
    private static final Pattern PATH = Pattern.compile("/([A-Za-z0-9_-]+)/api/v1/nni(/.*)?");

    private final String experimentId;
    private final String route;

    private ExperimentPrefix(HttpServletRequest request, String experimentId, String route) {
        super(request);
        this.experimentId = experimentId;
        this.route = route;
    }

    /** @return the request as the routes see it, or the request unchanged if it is not under a prefix */
    static HttpServletRequest unwrap(HttpServletRequest request) {
        if (!SERVLET_PATH.equals(request.getServletPath())) {
            return request;
        }
        Matcher m = PATH.matcher(request.getPathInfo() == null ? "" : request.getPathInfo());
        if (!m.matches()) { // no route has this path: the router answers 404 naming it
            return new ExperimentPrefix(request, null, SERVLET_PATH + request.getPathInfo());
        }
        return new ExperimentPrefix(request, m.group(1), m.group(2) == null ? "/" : m.group(2));
    }

    @Override
    public String getPathInfo() {
        return route;
    }

    /** The routes read their parameters from the query string ({@link nni.http.QueryParameters}): the prefix's id comes first. */
    @Override
    public String getQueryString() {
        String query = super.getQueryString();
        if (experimentId == null) {
            return query;
        }
        String own = EXPERIMENT_PARAMETER + "=" + experimentId;
        return query == null || query.isEmpty() ? own : own + "&" + query;
    }

    @Override
    public String getParameter(String name) {
        return EXPERIMENT_PARAMETER.equals(name) && experimentId != null ? experimentId : super.getParameter(name);
    }

    @Override
    public Map<String, String[]> getParameterMap() {
        Map<String, String[]> parameters = new java.util.LinkedHashMap<>(super.getParameterMap());
        if (experimentId != null) {
            parameters.put(EXPERIMENT_PARAMETER, new String[] {experimentId});
        }
        return parameters;
    }
}
