package nni.ts.dlc.internal;

import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Alibaba Cloud's ROA request signature (AccessKey, HMAC-SHA1, signature version 1.0), as published
 * for ROA-style APIs such as PAI-DLC: the string to sign is the method, {@code Accept},
 * {@code Content-MD5}, {@code Content-Type} and {@code Date} each on a line, then the
 * {@code x-acs-*} headers (lower-cased, sorted, {@code name:value} lines), then the path with the
 * query parameters sorted; the signature is its HMAC-SHA1 with the AccessKey secret, in Base64, sent
 * as {@code Authorization: acs <AccessKeyId>:<signature>}. The JDK's {@link Mac} computes it.
 */
final class RoaSigner {

    static final String VERSION = "2020-12-03";
    /**
     * HTTP's date (RFC 7231's IMF-fixdate, RFC 1123's form with a two-digit day): the JDK's
     * {@code RFC_1123_DATE_TIME} writes one digit on the 1st to the 9th, which servers that compare
     * the signed date as text refuse.
     */
    static final DateTimeFormatter DATE = DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US)
            .withZone(ZoneOffset.UTC);

    private final String accessKeyId;
    private final String accessKeySecret;
    private final Clock clock;

    RoaSigner(String accessKeyId, String accessKeySecret) {
        this(accessKeyId, accessKeySecret, Clock.systemUTC());
    }

    RoaSigner(String accessKeyId, String accessKeySecret, Clock clock) {
        this.accessKeyId = accessKeyId;
        this.accessKeySecret = accessKeySecret;
        this.clock = clock;
    }

    /**
     * @param body the JSON body, or null for none
     * @return a request with the signature and the headers it covers
     */
    HttpRequest.Builder sign(String method, URI uri, String body) {
        String accept = "application/json";
        String contentType = body == null ? "" : "application/json";
        String md5 = body == null ? "" : Base64.getEncoder().encodeToString(md5(body.getBytes(StandardCharsets.UTF_8)));
        String date = DATE.format(clock.instant());
        Map<String, String> acs = new TreeMap<>();
        acs.put("x-acs-signature-method", "HMAC-SHA1");
        acs.put("x-acs-signature-nonce", UUID.randomUUID().toString());
        acs.put("x-acs-signature-version", "1.0");
        acs.put("x-acs-version", VERSION);
        String toSign = stringToSign(method, accept, md5, contentType, date, acs, uri.getRawPath(), uri.getRawQuery());
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).header("Accept", accept).header("Date", date)
                .header("Authorization", "acs " + accessKeyId + ":" + signature(accessKeySecret, toSign));
        acs.forEach(request::header);
        if (body != null) {
            request.header("Content-Type", contentType).header("Content-MD5", md5)
                    .method(method, HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
        } else {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        }
        return request;
    }

    /** The published string to sign; {@code acsHeaders} lower-cased. Shared with whoever verifies. */
    static String stringToSign(String method, String accept, String md5, String contentType, String date,
                               Map<String, String> acsHeaders, String path, String query) {
        String headers = new TreeMap<>(acsHeaders).entrySet().stream().map(e -> e.getKey() + ":" + e.getValue() + "\n")
                .collect(Collectors.joining());
        String resource = path;
        if (query != null && !query.isEmpty()) {
            Map<String, String> sorted = new TreeMap<>();
            for (String pair : query.split("&")) {
                int equals = pair.indexOf('=');
                sorted.put(decode(equals < 0 ? pair : pair.substring(0, equals)), equals < 0 ? null : decode(pair.substring(equals + 1)));
            }
            resource += "?" + sorted.entrySet().stream().map(e -> e.getValue() == null || e.getValue().isEmpty() ? e.getKey()
                    : e.getKey() + "=" + e.getValue()).collect(Collectors.joining("&"));
        }
        return method + "\n" + accept + "\n" + md5 + "\n" + contentType + "\n" + date + "\n" + headers + resource;
    }

    static String signature(String secret, String stringToSign) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            return Base64.getEncoder().encodeToString(mac.doFinal(stringToSign.getBytes(StandardCharsets.UTF_8)));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA1 is missing from this Java", e);
        }
    }

    private static byte[] md5(byte[] bytes) {
        try {
            return MessageDigest.getInstance("MD5").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("MD5 is missing from this Java", e);
        }
    }

    private static String decode(String text) {
        return java.net.URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
}
