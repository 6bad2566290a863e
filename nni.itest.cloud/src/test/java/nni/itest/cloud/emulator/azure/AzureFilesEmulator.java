package nni.itest.cloud.emulator.azure;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

import nni.itest.cloud.emulator.CloudEmulator;

/**
 * Azure Files' REST API for one storage account, path-style as Azurite serves storage
 * ({@code /<account>/<share>/<path>}; the account's host name is the path's first segment), with
 * the shares kept as folders of a local directory ({@link #folder}), so that the emulated cluster
 * can mount them in its pods: Create Share ({@code PUT ?restype=share}), Create Directory
 * ({@code PUT ?restype=directory}), Create File ({@code PUT} with {@code x-ms-type: file} and
 * {@code x-ms-content-length}), Put Range ({@code PUT ?comp=range}, {@code x-ms-range},
 * {@code x-ms-write: update}, at most 4 MiB), Get File ({@code GET}) and List Directories and Files
 * ({@code GET ?restype=directory&comp=list}). Each request is checked as the service checks it: an
 * {@code x-ms-version} it knows (from 2021-06-08 on, when the SMB property headers became optional),
 * a date within 15 minutes, and the Shared Key signature recomputed here from the request as received
 * with the account's key (403 {@code AuthenticationFailed} otherwise); errors are the service's XML
 * with its codes. Failures can be injected ({@link #faults()}).
 */
public final class AzureFilesEmulator extends CloudEmulator {

    public static final Set<String> VERSIONS = Set.of("2021-06-08", "2021-08-06", "2021-10-04", "2021-12-02", "2022-11-02",
            "2023-01-03", "2023-05-03", "2023-08-03", "2023-11-03", "2024-02-04", "2024-05-04", "2024-08-04", "2024-11-04",
            "2025-01-05", "2025-05-05");
    private static final int MAX_RANGE = 4 * 1024 * 1024;
    private static final Pattern RANGE = Pattern.compile("bytes=(\\d+)-(\\d+)");
    /** RFC 1123's IMF-fixdate, two-digit day, as the service parses it. */
    private static final Pattern HTTP_DATE = Pattern.compile("[A-Z][a-z]{2}, \\d{2} [A-Z][a-z]{2} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT");
    private static final List<String> SIGNED_HEADERS = List.of("content-encoding", "content-language", "content-length", "content-md5",
            "content-type", "date", "if-modified-since", "if-match", "if-none-match", "if-unmodified-since", "range");

    private final String account;
    private final byte[] key;
    private final Path root;
    private final List<String> refused = new ArrayList<>();

    /**
     * @param key  the account's key (base64), the one a client must sign with
     * @param root where the shares are kept
     */
    public AzureFilesEmulator(String account, String key, Path root) throws Exception {
        this.account = account;
        this.key = Base64.getDecoder().decode(key);
        this.root = Files.createDirectories(root);
        listen();
    }

    /** @return the folder of a share (created or not) */
    public Path folder(String share) {
        return root.resolve(share);
    }

    /** @return the requests refused, with why */
    public List<String> refused() {
        synchronized (refused) {
            return List.copyOf(refused);
        }
    }

    /**
     * What the kubelet's mount of an {@code azureFile} volume does: the share's folder when the
     * account and key are this account's and the share exists.
     *
     * @throws IOException as {@code mount -t cifs} fails: permission denied, no such share
     */
    public Path mount(String accountName, String accountKey, String share) throws IOException {
        if (!account.equals(accountName) || !java.util.Arrays.equals(key, Base64.getDecoder().decode(accountKey.strip()))) {
            throw new IOException("mount error(13): Permission denied (storage account " + accountName + ")");
        }
        if (!Files.isDirectory(folder(share))) {
            throw new IOException("mount error(2): No such file or directory (share " + share + ")");
        }
        return folder(share);
    }

    @Override
    protected Answer handle(Request request, Map<String, String> headers) throws Exception {
        String prefix = "/" + account;
        if (!request.path().equals(prefix) && !request.path().startsWith(prefix + "/")) {
            return error(400, "InvalidUri", "the emulated account is " + account);
        }
        String version = headers.get("x-ms-version");
        if (version == null) {
            return error(400, "MissingRequiredHeader", "An HTTP header that's mandatory for this request is not specified: x-ms-version");
        }
        if (!VERSIONS.contains(version)) {
            return error(400, "InvalidHeaderValue", "The value for one of the HTTP headers is not in the correct format: x-ms-version "
                    + version + " (the emulator knows " + new java.util.TreeSet<>(VERSIONS) + ")");
        }
        Answer refusal = authenticate(request, headers);
        if (refusal != null) {
            return refusal;
        }
        List<String> segments = new ArrayList<>();
        for (String segment : request.path().substring(prefix.length()).split("/")) {
            if (!segment.isEmpty()) {
                segments.add(URLDecoder.decode(segment.replace("+", "%2B"), StandardCharsets.UTF_8));
            }
        }
        if (segments.isEmpty() || segments.stream().anyMatch(s -> s.equals("..") || s.equals("."))) {
            return error(400, "InvalidUri", "The requested URI does not represent any resource on the server.");
        }
        String restype = query(request.query(), "restype");
        String comp = query(request.query(), "comp");
        Path share = folder(segments.get(0));
        Path target = share.resolve(String.join("/", segments.subList(1, segments.size())));
        String method = request.method();
        if (segments.size() == 1 && "share".equals(restype) && method.equals("PUT")) {
            if (Files.isDirectory(share)) {
                return error(409, "ShareAlreadyExists", "The specified share already exists.");
            }
            Files.createDirectories(share);
            return created();
        }
        if (!Files.isDirectory(share)) {
            return error(404, "ShareNotFound", "The specified share does not exist.");
        }
        if ("directory".equals(restype) && "list".equals(comp) && method.equals("GET")) {
            return list(segments, target);
        }
        if (segments.size() < 2) {
            return error(400, "InvalidQueryParameterValue", "no such operation on a share: " + request);
        }
        if (!Files.isDirectory(target.getParent())) {
            return error(404, "ParentNotFound", "The specified parent path does not exist.");
        }
        if ("directory".equals(restype) && method.equals("PUT")) {
            if (Files.exists(target)) {
                return error(409, "ResourceAlreadyExists", "The specified resource already exists.");
            }
            Files.createDirectory(target);
            return created();
        }
        if ("range".equals(comp) && method.equals("PUT")) {
            return putRange(target, request.bytes(), headers);
        }
        if (restype == null && comp == null && method.equals("PUT")) {
            return createFile(target, headers, request.bytes().length);
        }
        if (restype == null && comp == null && method.equals("GET")) {
            if (!Files.isRegularFile(target)) {
                return error(404, "ResourceNotFound", "The specified resource does not exist.");
            }
            byte[] content = Files.readAllBytes(target);
            return new Answer(200, "application/octet-stream", content, Map.of("x-ms-type", "File", "x-ms-version", version));
        }
        return error(400, "InvalidQueryParameterValue", "the emulator has no such operation: " + request);
    }

    private Answer createFile(Path target, Map<String, String> headers, int bodyLength) throws IOException {
        if (!"file".equals(headers.get("x-ms-type"))) {
            return error(400, "MissingRequiredHeader", "An HTTP header that's mandatory for this request is not specified: x-ms-type");
        }
        String length = headers.get("x-ms-content-length");
        if (length == null || !length.matches("\\d{1,15}")) {
            return error(400, "MissingRequiredHeader", "An HTTP header that's mandatory for this request is not specified: "
                    + "x-ms-content-length");
        }
        if (bodyLength != 0) {
            return error(400, "InvalidHeaderValue", "Create File takes no body; its content comes with Put Range");
        }
        if (Files.isDirectory(target)) {
            return error(409, "ResourceTypeMismatch", "The specified resource type does not match the type of the existing resource.");
        }
        try (RandomAccessFile file = new RandomAccessFile(target.toFile(), "rw")) {
            file.setLength(0);
            file.setLength(Long.parseLong(length));
        }
        return created();
    }

    private Answer putRange(Path target, byte[] body, Map<String, String> headers) throws IOException {
        String range = headers.getOrDefault("x-ms-range", headers.get("range"));
        Matcher bytes = range == null ? null : RANGE.matcher(range);
        if (bytes == null || !bytes.matches()) {
            return error(400, "MissingRequiredHeader", "An HTTP header that's mandatory for this request is not specified: x-ms-range");
        }
        if (!"update".equals(headers.get("x-ms-write"))) {
            return error(400, "InvalidHeaderValue", "x-ms-write must be update (clear is not emulated)");
        }
        long start = Long.parseLong(bytes.group(1));
        long end = Long.parseLong(bytes.group(2));
        if (end < start || end - start + 1 > MAX_RANGE) {
            return error(413, "RequestBodyTooLarge", "The request body is too large and exceeds the maximum permissible limit (4 MiB).");
        }
        if (body.length != end - start + 1) {
            return error(400, "InvalidHeaderValue", "The range " + range + " is not the length of the body (" + body.length + ")");
        }
        if (!Files.isRegularFile(target)) {
            return error(404, "ResourceNotFound", "The specified resource does not exist.");
        }
        try (RandomAccessFile file = new RandomAccessFile(target.toFile(), "rw")) {
            if (end >= file.length()) {
                return error(416, "InvalidRange", "The range specified is invalid for the current size of the resource.");
            }
            file.seek(start);
            file.write(body);
        }
        return created();
    }

    private Answer list(List<String> segments, Path directory) throws IOException {
        if (!Files.isDirectory(directory)) {
            return error(404, "ResourceNotFound", "The specified resource does not exist.");
        }
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"utf-8\"?><EnumerationResults ServiceEndpoint=\"https://")
                .append(account).append(".file.core.windows.net/\" ShareName=\"").append(xml(segments.get(0)))
                .append("\" DirectoryPath=\"").append(xml(String.join("/", segments.subList(1, segments.size())))).append("\"><Entries>");
        try (Stream<Path> children = Files.list(directory)) {
            for (Path child : children.sorted().toList()) {
                String name = xml(child.getFileName().toString());
                if (Files.isDirectory(child)) {
                    xml.append("<Directory><Name>").append(name).append("</Name><Properties /></Directory>");
                } else {
                    xml.append("<File><Name>").append(name).append("</Name><Properties><Content-Length>").append(Files.size(child))
                            .append("</Content-Length></Properties></File>");
                }
            }
        }
        xml.append("</Entries><NextMarker /></EnumerationResults>");
        return new Answer(200, "application/xml", xml.toString());
    }

    private static String xml(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }

    /** @return a refusal when the request's date or Shared Key signature is not right, else null */
    private Answer authenticate(Request request, Map<String, String> headers) throws Exception {
        String date = headers.getOrDefault("x-ms-date", headers.get("date"));
        if (date != null && !HTTP_DATE.matcher(date).matches()) {
            return refuse("x-ms-date " + date + " is not an HTTP date", "The date header is not in the format"
                    + " 'ddd, dd MMM yyyy HH:mm:ss GMT': '" + date + "'");
        }
        try {
            Instant when = ZonedDateTime.parse(date == null ? "" : date, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
            if (Duration.between(when, Instant.now()).abs().compareTo(Duration.ofMinutes(15)) > 0) {
                return refuse("the request's date " + date + " is more than 15 minutes away", "Request date header too old: '" + date + "'");
            }
        } catch (DateTimeParseException e) {
            return refuse("no x-ms-date or Date", "Request date header not specified");
        }
        String authorization = headers.get("authorization");
        String claimed = "SharedKey " + account + ":";
        if (authorization == null || !authorization.startsWith(claimed)) {
            return refuse("no Shared Key authorization for account " + account + ": " + authorization,
                    "The Authorization header is missing or not of the form SharedKey " + account + ":<signature>");
        }
        String signed = signedString(request, headers);
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        String expected = Base64.getEncoder().encodeToString(mac.doFinal(signed.getBytes(StandardCharsets.UTF_8)));
        if (!expected.equals(authorization.substring(claimed.length()))) {
            return refuse("signature mismatch for " + request, "The MAC signature found in the HTTP request '"
                    + authorization.substring(claimed.length()) + "' is not the same as any computed signature. Server used following"
                    + " string to sign: '" + signed + "'.");
        }
        return null;
    }

    /** The string the service signs, built from the request as it arrived. */
    private String signedString(Request request, Map<String, String> headers) {
        StringBuilder text = new StringBuilder(request.method()).append('\n');
        for (String name : SIGNED_HEADERS) {
            String value = headers.getOrDefault(name, "");
            text.append(name.equals("content-length") && value.equals("0") ? "" : value).append('\n');
        }
        SortedMap<String, String> ms = new TreeMap<>();
        headers.forEach((name, value) -> {
            if (name.startsWith("x-ms-")) {
                ms.put(name, value.trim().replaceAll("\\s+", " "));
            }
        });
        ms.forEach((name, value) -> text.append(name).append(':').append(value).append('\n'));
        text.append('/').append(account).append(request.path());
        SortedMap<String, List<String>> parameters = new TreeMap<>();
        if (request.query() != null && !request.query().isEmpty()) {
            for (String pair : request.query().split("&")) {
                String[] nameValue = pair.split("=", 2);
                parameters.computeIfAbsent(decode(nameValue[0]).toLowerCase(Locale.ROOT), n -> new ArrayList<>())
                        .add(nameValue.length > 1 ? decode(nameValue[1]) : "");
            }
        }
        parameters.forEach((name, values) -> text.append('\n').append(name).append(':')
                .append(String.join(",", values.stream().sorted().toList())));
        return text.toString();
    }

    private Answer refuse(String why, String detail) {
        synchronized (refused) {
            refused.add(why);
        }
        return new Answer(403, "application/xml", "\uFEFF<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>AuthenticationFailed</Code>"
                + "<Message>Server failed to authenticate the request. Make sure the value of Authorization header is formed correctly"
                + " including the signature.\nRequestId:" + UUID.randomUUID() + "\nTime:" + Instant.now() + "</Message>"
                + "<AuthenticationErrorDetail>" + xml(detail) + "</AuthenticationErrorDetail></Error>")
                .with("x-ms-error-code", "AuthenticationFailed");
    }

    private static Answer created() {
        return new Answer(201, null, new byte[0], Map.of("ETag", "\"0x" + Long.toHexString(System.nanoTime()) + "\""));
    }

    private static Answer error(int status, String code, String message) {
        return new Answer(status, "application/xml", "\uFEFF<?xml version=\"1.0\" encoding=\"utf-8\"?><Error><Code>" + code
                + "</Code><Message>" + xml(message) + "\nRequestId:" + UUID.randomUUID() + "\nTime:" + Instant.now()
                + "</Message></Error>").with("x-ms-error-code", code);
    }

    @Override
    protected Answer injected(int status) {
        return error(status, status == 503 ? "ServerBusy" : "InternalError", status == 503
                ? "The server is currently unable to receive requests. Please retry your request." : "injected failure");
    }

    @Override
    protected void endJobs() {
        // the shares stay: they are folders of the test
    }
}
