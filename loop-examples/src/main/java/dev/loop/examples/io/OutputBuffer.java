package dev.loop.examples.io;

import dev.loop.LoopFuture;
import dev.loop.net.Connection;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * A growable byte array that replies are encoded into, then handed to a connection in one
 * {@link Connection#write}. Not thread-safe.
 *
 * <p>One is shared by every connection of a loop: a connection encodes the replies to a whole
 * batch of pipelined requests, writes them once, and the buffer is empty again for the next one
 * ({@code write} copies whatever the kernel did not take at once). Numbers are written as ASCII
 * digits straight into the array, so encoding a reply allocates nothing.
 */
public final class OutputBuffer {
    /** After a flush, an array above this size is replaced by one of the initial size. */
    private static final int KEEP = 1024 * 1024;
    private static final byte[] MIN_LONG = "-9223372036854775808".getBytes(StandardCharsets.US_ASCII);

    private final int initial;
    private byte[] buf;
    private ByteBuffer view; // over buf, reused by every flush while buf stays the same array
    private int pos;

    public OutputBuffer(int initialCapacity) {
        this.initial = Math.max(64, initialCapacity);
        this.buf = new byte[initial];
        this.view = ByteBuffer.wrap(buf);
    }

    /** Bytes written since the last flush. */
    public int size() {
        return pos;
    }

    public boolean isEmpty() {
        return pos == 0;
    }

    /** Forgets what was written since the last flush. */
    public void reset() {
        pos = 0;
    }

    /** Truncates to {@code size} bytes (a mark taken with {@link #size()}). */
    public void truncate(int size) {
        if (size < 0 || size > pos) {
            throw new IndexOutOfBoundsException("truncate to " + size + " of " + pos);
        }
        pos = size;
    }

    public void ensureRoom(int n) {
        if (buf.length - pos >= n) {
            return;
        }
        long want = Math.max((long) buf.length * 2, (long) pos + n);
        if (want > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("output buffer would exceed 2 GiB");
        }
        byte[] bigger = new byte[(int) want];
        System.arraycopy(buf, 0, bigger, 0, pos);
        buf = bigger;
        view = ByteBuffer.wrap(buf);
    }

    public OutputBuffer put(byte b) {
        ensureRoom(1);
        buf[pos++] = b;
        return this;
    }

    public OutputBuffer put(byte[] bytes) {
        return put(bytes, 0, bytes.length);
    }

    public OutputBuffer put(byte[] bytes, int off, int len) {
        ensureRoom(len);
        System.arraycopy(bytes, off, buf, pos, len);
        pos += len;
        return this;
    }

    /** Appends the bytes of another buffer. */
    public OutputBuffer put(OutputBuffer other) {
        return put(other.buf, 0, other.pos);
    }

    /** Appends {@code s}, which must be ASCII (each char becomes one byte). */
    public OutputBuffer putAscii(String s) {
        int n = s.length();
        ensureRoom(n);
        for (int i = 0; i < n; i++) {
            buf[pos++] = (byte) s.charAt(i);
        }
        return this;
    }

    /** Appends {@code v} in decimal ASCII, without allocating. */
    public OutputBuffer putDecimal(long v) {
        if (v == Long.MIN_VALUE) {
            return put(MIN_LONG);
        }
        ensureRoom(20);
        if (v < 0) {
            buf[pos++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        int at = pos + digits;
        pos = at;
        do {
            buf[--at] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        } while (v != 0);
        return this;
    }

    /**
     * A buffer over the next {@code n} bytes of free space, for a channel to read into; call
     * {@link #advance} with the count it filled.
     */
    public ByteBuffer room(int n) {
        ensureRoom(n);
        return view.clear().position(pos).limit(pos + n);
    }

    /** Counts {@code n} bytes written into {@link #room}. */
    public void advance(int n) {
        if (n < 0 || pos + n > buf.length) {
            throw new IndexOutOfBoundsException("advance " + n + " at " + pos + " of " + buf.length);
        }
        pos += n;
    }

    /** The bytes written so far (a copy), for tests and for handing them to another thread. */
    public byte[] toByteArray() {
        return java.util.Arrays.copyOf(buf, pos);
    }

    /**
     * Writes everything to {@code c} in one call and empties the buffer.
     *
     * @return the write's future (an already completed one when the kernel took it all)
     */
    public LoopFuture<Void> flushTo(Connection c) {
        view.clear().limit(pos);
        pos = 0;
        LoopFuture<Void> f = c.write(view);
        if (buf.length > KEEP) {
            buf = new byte[initial];
            view = ByteBuffer.wrap(buf);
        }
        return f;
    }

    @Override
    public String toString() {
        return "OutputBuffer[" + pos + " of " + buf.length + " bytes]";
    }
}
