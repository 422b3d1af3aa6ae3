package dev.loop.net.tls;

import dev.loop.Loop;
import dev.loop.engine.Engine;
import dev.loop.engine.ExtensionKey;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * The buffers TLS connections of one loop borrow, not thread-safe (loop thread only): a
 * connection holds one only while it holds bytes in it (ciphertext not yet decrypted or not yet
 * sent, plaintext not yet read), and gives it back as soon as it is empty. An idle TLS connection
 * therefore holds none, and a busy loop reuses the same few buffers for every record: nothing is
 * allocated per record once as many are free as connections need at the same time.
 *
 * <p>Heap buffers: the JDK's engine encrypts and decrypts in place in the network buffers, and its
 * ciphers work on arrays; the backend copies a heap buffer to the socket through its own direct
 * one, as it does for the outgoing queue.
 */
final class TlsBuffers {
    /**
     * Bytes per buffer: four whole TLS records (16 KiB of plaintext, 16709 bytes of ciphertext at
     * most), or two of the larger records some TLS 1.2 peers send. The engine wraps only into a
     * buffer with room for a whole record, and one socket read fills up to four of them.
     */
    static final int SIZE = 72 * 1024;

    /** Free buffers kept at most; beyond that a returned buffer is left to the collector. */
    static final int MAX_FREE = 64;

    private static final ExtensionKey<TlsBuffers> KEY = new ExtensionKey<>("tls-buffers");

    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();

    /** The pool of {@code loop}, made on first use. */
    static TlsBuffers of(Loop loop) {
        return Engine.of(loop).extension(KEY, e -> new TlsBuffers());
    }

    /** An empty buffer in write mode (position 0, limit {@link #SIZE}). */
    ByteBuffer take() {
        ByteBuffer b = free.pollLast(); // the most recently used is the likeliest to be in cache
        return b != null ? b.clear() : ByteBuffer.allocate(SIZE);
    }

    /** Takes back a buffer the caller no longer uses; null, or one not of this pool's size, is ignored. */
    void give(ByteBuffer b) {
        if (b != null && b.capacity() == SIZE && free.size() < MAX_FREE) {
            free.addLast(b);
        }
    }

    /** Free buffers right now (tests). */
    int free() {
        return free.size();
    }
}
