package nni.ts.k8s;

import java.net.ConnectException;
import java.net.UnknownHostException;
import java.net.http.HttpTimeoutException;
import java.util.concurrent.TimeoutException;

import javax.net.ssl.SSLException;

import io.fabric8.kubernetes.client.KubernetesClientException;

/**
 * What a failure from the cluster means, in words for the user: the API server's own message for
 * an HTTP answer, the network's reason otherwise; never an exception class name.
 */
final class Messages {

    private Messages() {
    }

    /** @return a one-line description of {@code failure} */
    static String of(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof UnknownHostException) {
                return "unknown host " + cause.getMessage();
            }
            if (cause instanceof ConnectException) {
                return "connection refused";
            }
            if (cause instanceof HttpTimeoutException || cause instanceof TimeoutException) {
                return "no answer in time";
            }
            if (cause instanceof SSLException) {
                return "TLS handshake failed (" + cause.getMessage() + ")";
            }
        }
        if (failure instanceof KubernetesClientException k8s && k8s.getStatus() != null && k8s.getStatus().getMessage() != null) {
            return k8s.getStatus().getMessage() + (k8s.getCode() > 0 ? " (HTTP " + k8s.getCode() + ")" : "");
        }
        String message = failure.getMessage();
        Throwable root = failure;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        if ((message == null || message.isBlank() || message.startsWith("An error has occurred")) && root.getMessage() != null) {
            message = root.getMessage();
        }
        return message == null || message.isBlank() ? "no reason given" : message.strip();
    }

    /** @return the HTTP status of a failure the API server answered, or 0 */
    static int status(Throwable failure) {
        return failure instanceof KubernetesClientException k8s ? k8s.getCode() : 0;
    }
}
