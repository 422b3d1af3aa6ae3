package dev.loop.net.stream;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * The bytes a connection read ahead for its stream helpers ({@code readExactly},
 * {@code readUntil}, {@code readLine}) and has not handed out yet; not thread-safe (loop thread
 * only).
 *
 * <p>The data is {@code buf[start, end)}. Reads land in the loop's shared scratch buffer and only
 * what arrived is {@linkplain #append appended}, so the array grows with what the connection
 * holds, not with the read size: a connection holding one byte of an unfinished line costs a
 * {@value #MIN_CAPACITY}-byte array, not a read buffer. Taking bytes only moves {@code start}; the
 * array is compacted when an append needs the room, so a batch of small messages costs one copy
 * each, not one compaction each. A connection about to wait gives back a large array it no longer
 * needs ({@link #trim}).
 */
final class StreamBuffer {
    /** The smallest array made: one read of a few bytes does not make a large one. */
    static final int MIN_CAPACITY = 128;
    /**
     * The largest array a waiting connection keeps whatever it holds: below it, a connection that
     * exchanges small messages reuses its array; above it, the array is cut to fit the bytes.
     */
    static final int KEEP_CAPACITY = 4096;
    private static final byte[] NONE = new byte[0];
    private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

    private byte[] buf = NONE;
    private int start;
    private int end;
    private int scanned; // bytes from start already searched for the pending read's delimiter

    /** Bytes buffered. */
    int size() {
        return end - start;
    }

    /** The array's length: what the buffer costs now. */
    int capacity() {
        return buf.length;
    }

    /** Appends {@code src}'s remaining bytes, growing the array to fit them. */
    void append(ByteBuffer src) {
        int n = src.remaining();
        if (buf.length - end < n) {
            makeRoom(n);
        }
        src.get(buf, end, n);
        end += n;
    }

    /** Room for {@code n} more bytes at {@code end}: compacted in place if they fit, else a larger array. */
    private void makeRoom(int n) {
        int size = end - start;
        long need = (long) size + n;
        if (need > MAX_ARRAY) {
            throw new OutOfMemoryError("a connection's read-ahead would exceed " + MAX_ARRAY + " bytes");
        }
        if (need <= buf.length) {
            System.arraycopy(buf, start, buf, 0, size);
        } else {
            byte[] bigger = new byte[fit((int) need, buf.length * 2L)];
            System.arraycopy(buf, start, bigger, 0, size);
            buf = bigger;
        }
        start = 0;
        end = size;
    }

    /** An array length for {@code need} bytes: a power of two, at least {@code atLeast}, within bounds. */
    private static int fit(int need, long atLeast) {
        long c = Math.max(MIN_CAPACITY, Math.max(atLeast, Long.highestOneBit(Math.max(1, need - 1)) << 1));
        return (int) Math.min(MAX_ARRAY, Math.max(need, c));
    }

    /**
     * Puts {@code bytes} (their remaining ones) back in front of what is buffered: a read completed
     * with them lost a race with its cancellation, and they belong to the next read.
     */
    void unread(ByteBuffer bytes) {
        int n = bytes.remaining();
        if (n == 0) {
            return;
        }
        int size = end - start;
        if (start >= n) {
            start -= n;
        } else {
            byte[] b = new byte[fit(size + n, buf.length)];
            System.arraycopy(buf, start, b, n, size);
            buf = b;
            start = 0;
            end = size + n;
        }
        bytes.get(buf, start, n);
        scanned = 0;
    }

    /**
     * The connection is about to wait for the network: an array above {@link #KEEP_CAPACITY} that is
     * mostly empty is cut to fit what it holds (nothing, if it holds nothing), so a connection that
     * once received a burst does not keep its size while it waits.
     */
    void trim() {
        int size = end - start;
        if (buf.length <= KEEP_CAPACITY || (long) size * 4 > buf.length) {
            return;
        }
        byte[] b = size == 0 ? NONE : Arrays.copyOfRange(buf, start, start + fit(size, 0));
        buf = b;
        start = 0;
        end = size;
    }

    /** Starts a new delimiter search from the first byte (a new read, maybe another delimiter). */
    void rescan() {
        scanned = 0;
    }

    /**
     * The index of the first {@code d} that ends within the first {@code limit} bytes, or -1. Bytes
     * searched without a match are remembered, so a delimiter read that waits for more data does not
     * search its buffer again from the start on every arrival.
     */
    int indexOf(byte[] d, int limit) {
        byte first = d[0];
        outer:
        for (int i = scanned; i + d.length <= limit; i++) {
            if (buf[start + i] != first) {
                continue;
            }
            for (int j = 1; j < d.length; j++) {
                if (buf[start + i + j] != d[j]) {
                    continue outer;
                }
            }
            return i;
        }
        // a match may still start in the last d.length - 1 bytes, once more arrive
        scanned = Math.max(0, limit - d.length + 1);
        return -1;
    }

    /** Removes the first {@code n} buffered bytes into a buffer of their own, the caller's to keep. */
    ByteBuffer take(int n) {
        ByteBuffer b = ByteBuffer.wrap(Arrays.copyOfRange(buf, start, start + n));
        consumed(n);
        return b;
    }

    /**
     * Moves as many buffered bytes as fit into {@code dst}.
     *
     * @return bytes moved
     */
    int moveTo(ByteBuffer dst) {
        int n = Math.min(end - start, dst.remaining());
        dst.put(buf, start, n);
        consumed(n);
        return n;
    }

    /** Removes every buffered byte into a buffer of its own (a handler takes over the stream). */
    ByteBuffer takeAll() {
        return take(end - start);
    }

    private void consumed(int n) {
        start += n;
        if (start == end) {
            start = 0;
            end = 0;
        }
        scanned = 0;
    }
}
