package nni.ts.k8s;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

import nni.ts.cloud.CloudException;
import nni.ts.cloud.HttpCalls;

/**
 * The Azure Files REST operations the Kubernetes platforms need, on one storage account, with
 * Shared Key authorization ({@link SharedKey}) at x-ms-version {@value #VERSION} (from 2021-06-08 on,
 * directories and files take default SMB properties when none are sent): Create Share, Create
 * Directory, Create File and Put Range (at most {@value #RANGE} bytes a request). Not thread-safe
 * with respect to one file; calls are independent otherwise.
 */
final class AzureFiles {

    static final String VERSION = "2023-11-03";
    /** The largest range Put Range takes. */
    static final int RANGE = 4 * 1024 * 1024;
    /** RFC 1123 with a two-digit day, as HTTP dates are (the JDK's {@code RFC_1123_DATE_TIME} writes "3 Nov"). */
    static final DateTimeFormatter HTTP_DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", java.util.Locale.US);

    private final String endpoint;
    private final SharedKey key;
    private final HttpCalls http;

    /**
     * @param endpoint the account's file endpoint, {@code https://<account>.file.core.windows.net}
     * @param key      the account's key (base64)
     * @throws IllegalArgumentException for a key that is not base64 (the message does not quote it)
     */
    AzureFiles(String account, String endpoint, String key, HttpCalls http) {
        this.endpoint = endpoint.endsWith("/") ? endpoint.substring(0, endpoint.length() - 1) : endpoint;
        this.key = new SharedKey(account, key);
        this.http = http;
    }

    /** @return whether the share was created (false: it existed) */
    boolean createShare(String share) throws CloudException {
        try {
            send("PUT", "/" + share, "restype=share", Map.of(), null, "creating file share " + share);
            return true;
        } catch (CloudException e) {
            if (e.kind() == CloudException.Kind.CONFLICT) { // ShareAlreadyExists (or ShareBeingDeleted: the next call says so)
                return false;
            }
            throw e;
        }
    }

    /** Creates a directory whose parent exists; one that exists already is fine. */
    void createDirectory(String share, String path) throws CloudException {
        try {
            send("PUT", "/" + share + "/" + encode(path), "restype=directory", Map.of(), null, "creating directory " + path
                    + " in file share " + share);
        } catch (CloudException e) {
            if (e.kind() != CloudException.Kind.CONFLICT) { // ResourceAlreadyExists
                throw e;
            }
        }
    }

    /** Creates (or replaces) {@code path} in the share with the content of {@code file}, range by range. */
    void upload(String share, String path, Path file) throws CloudException, IOException {
        long size = Files.size(file);
        String resource = "/" + share + "/" + encode(path);
        String what = "uploading " + path + " to file share " + share;
        send("PUT", resource, null, Map.of("x-ms-type", "file", "x-ms-content-length", Long.toString(size)), null, what);
        byte[] buffer = new byte[(int) Math.min(RANGE, Math.max(1, size))];
        try (InputStream in = Files.newInputStream(file)) {
            for (long offset = 0; offset < size; ) {
                int length = in.readNBytes(buffer, 0, (int) Math.min(buffer.length, size - offset));
                if (length <= 0) {
                    throw new IOException(file + " became shorter while it was uploaded");
                }
                byte[] range = length == buffer.length ? buffer : java.util.Arrays.copyOf(buffer, length);
                send("PUT", resource, "comp=range", Map.of("x-ms-range", "bytes=" + offset + "-" + (offset + length - 1),
                        "x-ms-write", "update"), range, what);
                offset += length;
            }
        }
    }

    private void send(String method, String path, String query, Map<String, String> extra, byte[] body, String what)
            throws CloudException {
        URI uri = URI.create(endpoint + path + (query == null ? "" : "?" + query));
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("x-ms-date", HTTP_DATE.format(ZonedDateTime.now(ZoneOffset.UTC)));
        headers.put("x-ms-version", VERSION);
        headers.putAll(extra);
        Map<String, String> signed = new LinkedHashMap<>(headers);
        signed.put("Content-Length", Integer.toString(body == null ? 0 : body.length));
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        request.header("Authorization", key.authorization(method, uri, signed));
        http.send(request, what);
    }

    /** @return {@code path}'s segments percent-encoded, as they go on the wire and into the signature */
    private static String encode(String path) {
        StringBuilder encoded = new StringBuilder();
        for (String segment : path.split("/")) {
            if (!segment.isEmpty()) {
                if (encoded.length() > 0) {
                    encoded.append('/');
                }
                encoded.append(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
            }
        }
        return encoded.toString();
    }
}
