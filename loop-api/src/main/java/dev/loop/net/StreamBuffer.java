package dev.loop.net;

import java.nio.ByteBuffer;

/**
 * The bytes a connection read ahead for its stream helpers ({@code readExactly},
 * {@code readUntil}, {@code readLine}) and has not handed out yet; not thread-safe (loop thread
 * only).
 *
 * <p>One heap buffer in write mode: the data is {@code [0, position)} and reads append at the
 * position. The reader makes this object on its first stream read, so a connection read only in
 * push style, or only with {@code read(dst)}, has none; the heap buffer itself comes with the
 * first read into it. How big it starts and how it grows is decided in {@link #room} alone.
 */
final class StreamBuffer {
    private ByteBuffer in;
    private int scanned; // bytes from the start already searched for the pending read's delimiter

    /** Bytes buffered. */
    int size() {
        return in == null ? 0 : in.position();
    }

    /**
     * The buffer to read into next, with room for at least one byte: made at a read's worth, and
     * once full doubled up to {@code limit} (n for readExactly, maxLength for the delimiter reads),
     * never beyond it.
     *
     * @param limit          the most bytes the pending read may need buffered
     * @param readBufferSize the connection's read size, the most a new buffer starts with
     */
    ByteBuffer room(int limit, int readBufferSize) {
        int target = Math.max(limit, 1);
        if (in == null) {
            in = ByteBuffer.allocate(Math.min(target, readBufferSize));
        } else if (!in.hasRemaining()) {
            // full and the read not complete means below its limit: the reader checked these bytes
            int grown = Math.max(in.capacity() + 1, (int) Math.min(target, in.capacity() * 2L));
            ByteBuffer bigger = ByteBuffer.allocate(grown);
            in.flip();
            bigger.put(in);
            in = bigger;
        }
        return in;
    }

    /** Starts a new delimiter search from the first byte (a new read, maybe another delimiter). */
    void rescan() {
        scanned = 0;
    }

    /**
     * The index of the first {@code d} that ends within the first {@code end} bytes, or -1. Bytes
     * searched without a match are remembered, so a delimiter read that waits for more data does not
     * search its buffer again from the start on every arrival.
     */
    int indexOf(byte[] d, int end) {
        outer:
        for (int i = scanned; i + d.length <= end; i++) {
            for (int j = 0; j < d.length; j++) {
                if (in.get(i + j) != d[j]) {
                    continue outer;
                }
            }
            return i;
        }
        // a match may still start in the last d.length - 1 bytes, once more arrive
        scanned = Math.max(0, end - d.length + 1);
        return -1;
    }

    /** Removes the first {@code n} buffered bytes into a buffer of their own, the caller's to keep. */
    ByteBuffer take(int n) {
        ByteBuffer b = ByteBuffer.allocate(n);
        in.flip();
        int limit = in.limit();
        in.limit(n);
        b.put(in).flip();
        in.limit(limit);
        in.compact();
        scanned = 0;
        return b;
    }

    /**
     * Moves as many buffered bytes as fit into {@code dst}; there must be some.
     *
     * @return bytes moved
     */
    int moveTo(ByteBuffer dst) {
        in.flip();
        int n = Math.min(in.remaining(), dst.remaining());
        int limit = in.limit();
        in.limit(in.position() + n);
        dst.put(in);
        in.limit(limit);
        in.compact();
        return n;
    }

    /** Removes every buffered byte into a buffer of its own (a handler takes over the stream). */
    ByteBuffer takeAll() {
        in.flip();
        ByteBuffer rest = ByteBuffer.allocate(in.remaining()).put(in).flip();
        in.clear();
        return rest;
    }
}
