package nni.itest.keeper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/** Writes tar.gz archives with chosen (also hostile) entry names, as an attacker could. */
public final class TarBuilder {
    private final ByteArrayOutputStream tar = new ByteArrayOutputStream();

    public TarBuilder file(String name, String content) {
        byte[] data = content.getBytes(StandardCharsets.UTF_8);
        header(name, '0', data.length, "", 0644);
        tar.writeBytes(data);
        pad(data.length);
        return this;
    }

    public TarBuilder directory(String name) {
        header(name, '5', 0, "", 0755);
        return this;
    }

    public TarBuilder symlink(String name, String target) {
        header(name, '2', 0, target, 0777);
        return this;
    }

    public TarBuilder hardlink(String name, String target) {
        header(name, '1', 0, target, 0644);
        return this;
    }

    /** A device or FIFO entry of the given type ('3' character device, '4' block device, '6' FIFO). */
    public TarBuilder device(String name, char type) {
        header(name, type, 0, "", 0644);
        return this;
    }

    /** A pax extended header ('x') whose records are {@code records} exactly as given, well-formed or not. */
    public TarBuilder pax(String records) {
        byte[] data = records.getBytes(StandardCharsets.UTF_8);
        header("PaxHeaders/x", 'x', data.length, "", 0644);
        tar.writeBytes(data);
        pad(data.length);
        return this;
    }

    /** Writes a tar.gz holding one file of {@code size} zero bytes, streamed (the archive is about size / 1000). */
    public static Path writeZeros(Path file, String name, long size) throws IOException {
        TarBuilder head = new TarBuilder();
        head.header(name, '0', size, "", 0644);
        try (GZIPOutputStream out = new GZIPOutputStream(Files.newOutputStream(file), 1 << 16)) {
            out.write(head.tar.toByteArray());
            byte[] zeros = new byte[1 << 20];
            for (long left = size + (512 - size % 512) % 512 + 1024; left > 0; left -= zeros.length) {
                out.write(zeros, 0, (int) Math.min(zeros.length, left));
            }
        }
        return file;
    }

    public Path write(Path file) throws IOException {
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
