package nni.trialkeeper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes tar.gz archives with chosen (also hostile) entry names, as an attacker could. */
final class TarBuilder {
    private final ByteArrayOutputStream tar = new ByteArrayOutputStream();

    TarBuilder file(String name, String content) {
        byte[] data = content.getBytes(StandardCharsets.UTF_8);
        header(name, '0', data.length, "", 0644);
        tar.writeBytes(data);
        pad(data.length);
        return this;
    }

    TarBuilder directory(String name) {
        header(name, '5', 0, "", 0755);
        return this;
    }

    TarBuilder symlink(String name, String target) {
        header(name, '2', 0, target, 0777);
        return this;
    }

    TarBuilder hardlink(String name, String target) {
        header(name, '1', 0, target, 0644);
        return this;
    }

    Path write(Path file) throws IOException {
        tar.writeBytes(new byte[1024]);
        try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(file))) {
            out.write(tar.toByteArray());
        }
        return file;
    }

    private void header(String name, char type, long size, String link, int mode) {
        byte[] h = new byte[512];
        put(h, 0, 100, name);
        put(h, 100, 8, String.format("%07o", mode));
        put(h, 108, 8, "0000000");
        put(h, 116, 8, "0000000");
        put(h, 124, 12, String.format("%011o", size));
        put(h, 136, 12, "00000000000");
        h[156] = (byte) type;
        put(h, 157, 100, link);
        put(h, 257, 6, "ustar");
        put(h, 263, 2, "00");
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        long sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        put(h, 148, 8, String.format("%06o", sum) + "\0 ");
        tar.writeBytes(h);
    }

    private void pad(long size) {
        tar.writeBytes(new byte[(int) ((512 - size % 512) % 512)]);
    }

    private static void put(byte[] h, int offset, int length, String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(bytes, 0, h, offset, Math.min(length, bytes.length));
    }
}
