package nni.web.internal.port;

import java.io.IOException;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.servlet.whiteboard.Preprocessor;

import nni.http.HttpError;

/**
 * {@code TRACE} gets 405 on the whole port, before the login and any servlet: the JSON routes
 * refused it already, but a plain servlet ({@code HttpServlet}'s default, as the web UI, the login
 * page and NNI's dispatchers' channels are) echoes the request back, headers and cookies included.
 */
@Component(service = Preprocessor.class, property = Constants.SERVICE_RANKING + ":Integer=1000")
public class TraceRefusal implements Preprocessor {

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain) throws IOException, ServletException {
        HttpServletRequest http = (HttpServletRequest) request;
        if (!"TRACE".equals(http.getMethod())) {
            chain.doFilter(request, response);
            return;
        }
        HttpServletResponse answer = (HttpServletResponse) response;
        if (http.getContentLengthLong() > 0 || http.getHeader("Transfer-Encoding") != null) {
            answer.setHeader("Connection", "close"); // a body is not read: the connection is not reused
        }
        new HttpError(405, "TRACE is not supported on " + http.getRequestURI()).send(answer);
    }
}
