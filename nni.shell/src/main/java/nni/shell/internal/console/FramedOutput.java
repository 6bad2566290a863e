package nni.shell.internal.console;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The console protocol's answer to a line: frames on one stream, each a kind letter, the length of
 * its data in decimal, a colon and the data. {@code o} is output, {@code e} error text, {@code x}
 * the line's end with its code as data ({@code x1:0}). Frames are flushed at once, so that
 * {@code nni:top} shows each refresh as it is printed. Thread-safe.
 */
final class FramedOutput {

    private final OutputStream out;
    private boolean broken;

    FramedOutput(OutputStream out) {
        this.out = out;
    }

    /** @return a stream whose bytes become frames of {@code kind} */
    OutputStream stream(char kind) {
        return new OutputStream() {
            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                frame(kind, bytes, offset, length);
            }
        };
    }

    void end(int code) throws IOException {
        byte[] data = Integer.toString(code).getBytes(StandardCharsets.US_ASCII);
        frame('x', data, 0, data.length);
    }

    /** @return whether the client went away (a write failed): the line is then interrupted */
    synchronized boolean broken() {
        return broken;
    }

    private synchronized void frame(char kind, byte[] bytes, int offset, int length) throws IOException {
        if (length == 0) {
            return;
        }
        try {
            out.write((kind + Integer.toString(length) + ":").getBytes(StandardCharsets.US_ASCII));
            out.write(bytes, offset, length);
            out.flush();
        } catch (IOException e) {
            broken = true;
            throw e;
        }
    }
}
