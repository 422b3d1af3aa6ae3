package dev.loop.examples.io;

import java.nio.ByteBuffer;

/**
 * Bytes a connection received and its parser has not consumed yet. Not thread-safe: one
 * connection's, on its loop.
 *
 * <p>A push-style connection hands out the loop's own read buffer, valid only during the call, so
 * whatever a parser cannot finish (half a request, a pipelined batch it paused on) is kept here.
 * The live bytes are {@code array()[start(), end())}; a parser reads them in place and then
 * {@linkplain #consumeTo consumes} what it used. Large arrays are let go once emptied, so ten
 * thousand idle connections do not each hold the biggest request they ever sent.
 */
public final class InputBuffer {
    private static final byte[] EMPTY = new byte[0];
    private static final int INITIAL = 4096;
    /** An emptied array above this size is dropped; the next data starts a smaller one. */
    private static final int KEEP = 64 * 1024;

    private byte[] buf = EMPTY;
    private int start;
    private int end;

    /** Appends {@code data}'s remaining bytes; {@code data} is consumed. */
    public void append(ByteBuffer data) {
        int n = data.remaining();
        ensureRoom(n);
        data.get(buf, end, n);
        end += n;
    }

    /** Makes room for {@code n} more bytes, compacting before growing. */
    public void ensureRoom(int n) {
        if (buf.length - end >= n) {
            return;
        }
        int live = end - start;
        if (start > 0 && buf.length - live >= n) {
            System.arraycopy(buf, start, buf, 0, live);
        } else {
            long want = Math.max(Math.max((long) buf.length * 2, INITIAL), (long) live + n);
            if (want > Integer.MAX_VALUE - 16) {
                throw new IllegalStateException("input buffer would exceed 2 GiB");
            }
            byte[] bigger = new byte[(int) want];
            System.arraycopy(buf, start, bigger, 0, live);
            buf = bigger;
        }
        start = 0;
        end = live;
    }

    public byte[] array() {
        return buf;
    }

    public int start() {
        return start;
    }

    public int end() {
        return end;
    }

    public int size() {
        return end - start;
    }

    public boolean isEmpty() {
        return end == start;
    }

    /** Drops the bytes before {@code index} (an index into {@link #array()}). */
    public void consumeTo(int index) {
        if (index < start || index > end) {
            throw new IndexOutOfBoundsException("consume to " + index + " outside [" + start + ", " + end + "]");
        }
        start = index;
        if (start == end) {
            start = end = 0;
            if (buf.length > KEEP) {
                buf = EMPTY;
            }
        }
    }

    /** Drops everything. */
    public void clear() {
        consumeTo(end);
    }
}
