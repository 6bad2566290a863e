package nni.ts.k8s;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Azure Storage's Shared Key authorization for the Blob, Queue and File services (version
 * 2009-09-19 and later), as Microsoft publishes it ("Authorize with Shared Key"): the string to sign
 * is the verb, eleven standard headers (Content-Length empty when 0, as from version 2015-02-21), the
 * canonicalized {@code x-ms-*} headers and the canonicalized resource ({@code /<account><path>}, then
 * each query parameter as {@code \nname:value}); the signature is HMAC-SHA256 of it (the JDK's
 * {@link Mac}) with the base64-decoded account key. Nothing else is computed here.
 */
final class SharedKey {

    private static final List<String> STANDARD = List.of("Content-Encoding", "Content-Language", "Content-Length", "Content-MD5",
            "Content-Type", "Date", "If-Modified-Since", "If-Match", "If-None-Match", "If-Unmodified-Since", "Range");

    private final String account;
    private final SecretKeySpec key;

    /**
     * @param account   the storage account's name
     * @param base64Key one of its access keys, as the portal and Key Vault give it (base64)
     * @throws IllegalArgumentException when the key is not base64; the message does not quote it
     */
    SharedKey(String account, String base64Key) {
        this.account = account;
        byte[] bytes;
        try {
            bytes = Base64.getDecoder().decode(base64Key.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("the key of storage account '" + account + "' is not base64, as account keys are");
        }
        if (bytes.length == 0) {
            throw new IllegalArgumentException("the key of storage account '" + account + "' is empty");
        }
        this.key = new SecretKeySpec(bytes, "HmacSHA256");
    }

    /**
     * @param method  the HTTP verb
     * @param uri     the request's URI, its path and query encoded as sent
     * @param headers the request's headers (names in any case), {@code Content-Length} included
     * @return the {@code Authorization} header's value, {@code SharedKey <account>:<signature>}
     */
    String authorization(String method, URI uri, Map<String, String> headers) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(key);
            byte[] signature = mac.doFinal(stringToSign(account, method, uri, headers).getBytes(StandardCharsets.UTF_8));
            return "SharedKey " + account + ":" + Base64.getEncoder().encodeToString(signature);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HMAC-SHA256 is not available in this Java runtime", e);
        }
    }

    /** @return the string Shared Key signs for this request */
    static String stringToSign(String account, String method, URI uri, Map<String, String> headers) {
        Map<String, String> byName = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        StringBuilder text = new StringBuilder(method.toUpperCase(Locale.ROOT)).append('\n');
        for (String name : STANDARD) {
            String value = byName.getOrDefault(name, "");
            if (name.equals("Content-Length") && value.equals("0")) {
                value = "";
            }
            text.append(value).append('\n');
        }
        Map<String, String> msHeaders = new TreeMap<>();
        byName.forEach((name, value) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (lower.startsWith("x-ms-")) {
                msHeaders.put(lower, value.strip().replaceAll("\\s+", " "));
            }
        });
        msHeaders.forEach((name, value) -> text.append(name).append(':').append(value).append('\n'));
        text.append('/').append(account).append(uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath());
        Map<String, List<String>> parameters = new TreeMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int equals = pair.indexOf('=');
                String name = decode(equals < 0 ? pair : pair.substring(0, equals)).toLowerCase(Locale.ROOT);
                parameters.computeIfAbsent(name, n -> new ArrayList<>()).add(equals < 0 ? "" : decode(pair.substring(equals + 1)));
            }
        }
        parameters.forEach((name, values) -> {
            List<String> sorted = new ArrayList<>(values);
            sorted.sort(null);
            text.append('\n').append(name).append(':').append(String.join(",", sorted));
        });
        return text.toString();
    }

    private static String decode(String text) {
        return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
