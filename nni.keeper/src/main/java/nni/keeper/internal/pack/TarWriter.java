package nni.keeper.internal.pack;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Writes a POSIX ustar stream (GNU long-name records for names over 100 bytes). */
final class TarWriter {

    private static final int BLOCK = 512;

    private final OutputStream out;

    TarWriter(OutputStream out) {
        this.out = out;
    }

    void directory(String name) throws IOException {
        header(name + "/", '5', 0, "", 0755);
    }

    void symbolicLink(String name, String target) throws IOException {
        header(name, '2', 0, target, 0777);
    }

    void file(String name, Path file, boolean executable) throws IOException {
        long size = Files.size(file);
        header(name, '0', size, "", executable ? 0755 : 0644);
        long written = Files.copy(file, out);
        if (written != size) {
            throw new IOException(file + " changed while it was packed");
        }
        pad(size);
    }

    void finish() throws IOException {
        out.write(new byte[2 * BLOCK]);
    }

    private void pad(long size) throws IOException {
        out.write(new byte[(int) ((BLOCK - size % BLOCK) % BLOCK)]);
    }

    private void header(String name, char type, long size, String link, int mode) throws IOException {
        byte[] nameBytes = name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > 100) {
            byte[] longName = (name + "\0").getBytes(StandardCharsets.UTF_8);
            header("././@LongLink", 'L', longName.length, "", 0644);
            out.write(longName);
            pad(longName.length);
        }
        byte[] block = new byte[BLOCK];
        field(block, 0, 100, nameBytes);
        field(block, 100, 8, octal(mode, 7));
        field(block, 108, 8, octal(0, 7));
        field(block, 116, 8, octal(0, 7));
        field(block, 124, 12, octal(size, 11));
        field(block, 136, 12, octal(System.currentTimeMillis() / 1000, 11));
        block[156] = (byte) type;
        field(block, 157, 100, link.getBytes(StandardCharsets.UTF_8));
        field(block, 257, 6, "ustar\0".getBytes(StandardCharsets.US_ASCII));
        field(block, 263, 2, "00".getBytes(StandardCharsets.US_ASCII));
        java.util.Arrays.fill(block, 148, 156, (byte) ' ');
        long checksum = 0;
        for (byte b : block) {
            checksum += b & 0xff;
        }
        field(block, 148, 8, (String.format("%06o", checksum) + "\0 ").getBytes(StandardCharsets.US_ASCII));
        out.write(block);
    }

    private static byte[] octal(long value, int digits) {
        return String.format("%0" + digits + "o", value).getBytes(StandardCharsets.US_ASCII);
    }

    private static void field(byte[] block, int offset, int length, byte[] value) {
        System.arraycopy(value, 0, block, offset, Math.min(length, value.length));
    }
}
