package nni.api.testkit.environment;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.zip.GZIPOutputStream;

/**
 * Writes the code archive the contract's specs carry: a tar.gz (ustar) of a few small files, as the
 * manager packs a trial code directory, without a tar program or library.
 */
final class CodeArchive {

    private static final int BLOCK = 512;

    private CodeArchive() {
    }

    /** Writes {@code files} (name to text, each mode 0755) to {@code archive}. @return the archive */
    static Path write(Path archive, Map<String, String> files) throws IOException {
        try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(archive))) {
            for (Map.Entry<String, String> file : files.entrySet()) {
                byte[] content = file.getValue().getBytes(StandardCharsets.UTF_8);
                out.write(header(file.getKey(), content.length));
                out.write(content);
                out.write(new byte[(BLOCK - content.length % BLOCK) % BLOCK]);
            }
            out.write(new byte[2 * BLOCK]); // the end: two empty blocks
        }
        return archive;
    }

    private static byte[] header(String name, long size) {
        byte[] header = new byte[BLOCK];
        put(header, 0, 100, name);
        put(header, 100, 8, octal(0755, 7));
        put(header, 108, 8, octal(0, 7));
        put(header, 116, 8, octal(0, 7));
        put(header, 124, 12, octal(size, 11));
        put(header, 136, 12, octal(System.currentTimeMillis() / 1000, 11));
        header[156] = '0'; // a regular file
        put(header, 257, 6, "ustar");
        put(header, 263, 2, "00");
        java.util.Arrays.fill(header, 148, 156, (byte) ' '); // the checksum counts itself as spaces
        long sum = 0;
        for (byte b : header) {
            sum += b & 0xff;
        }
        put(header, 148, 8, octal(sum, 6) + "\0 ");
        return header;
    }

    private static String octal(long value, int digits) {
        String text = Long.toOctalString(value);
        return "0".repeat(Math.max(0, digits - text.length())) + text;
    }

    private static void put(byte[] header, int offset, int length, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(bytes, 0, header, offset, Math.min(length, bytes.length));
    }
}
