package dev.loop.net.stream;

import dev.loop.Promise;
import dev.loop.spi.IoFileSender;
import dev.loop.spi.IoTransport;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A range of a file in a connection's outgoing queue ({@code Connection.sendFile}), not
 * thread-safe (loop thread only): how far it got, and how its next chunk reaches the transport.
 *
 * <p>Where the transport has the capability ({@link IoTransport#fileSender}) the kernel copies
 * the bytes from the page cache to the socket; otherwise (TLS, a backend without it) the file is
 * read into a buffer of at most {@link #CHUNK} bytes, and the next chunk is read only once the
 * transport took all of the last, so the memory held is one chunk however slow the peer. The
 * transport is asked again whenever it changes (STARTTLS mid-file), never per chunk otherwise.
 */
final class QueuedFile {
    /** The most read into memory at a time where the file cannot go to the kernel directly. */
    static final int CHUNK = 64 * 1024;

    final FileChannel file;
    final long count;
    final Promise<Long> promise;
    /** How many buffers the queue had ever held when this was added: those go out first. */
    final long afterBuffers;
    /** The file position of the next byte not yet sent (or read into {@link #chunk}). */
    private long next;
    /** Bytes of the range the transport has not taken yet, those in {@link #chunk} included. */
    private long unsent;
    /** The last call could not move everything offered: the transport is full for now. */
    private boolean full;
    private ByteBuffer chunk;
    private IoTransport askedOf;
    private IoFileSender sender;

    QueuedFile(FileChannel file, long position, long count, Promise<Long> promise, long afterBuffers) {
        this.file = file;
        this.next = position;
        this.count = count;
        this.unsent = count;
        this.promise = promise;
        this.afterBuffers = afterBuffers;
    }

    long unsent() {
        return unsent;
    }

    boolean isFull() {
        return full;
    }

    /** Whether it may stop here: nothing read is left half-sent, so the stream breaks at a chunk's end. */
    boolean atChunkEnd() {
        return chunk == null || !chunk.hasRemaining();
    }

    /**
     * Hands the next bytes to {@code transport}.
     *
     * @return bytes the transport took ({@code >= 0}), or -1 if the file ended before the range
     *         did, its future then failed with an {@link EOFException} naming the position
     * @throws IOException the transport's failure, or the file's read failure
     */
    long sendTo(IoTransport transport) throws IOException {
        if (atChunkEnd()) {
            IoFileSender s = senderFor(transport);
            if (s != null) {
                long n = s.sendFile(file, next, unsent);
                if (n < 0) {
                    return ended();
                }
                next += n;
                unsent -= n;
                full = unsent > 0;
                return n;
            }
            if (!fill()) {
                return ended();
            }
        }
        int n = transport.write(chunk);
        unsent -= n;
        full = chunk.hasRemaining();
        return n;
    }

    private IoFileSender senderFor(IoTransport transport) {
        if (transport != askedOf) {
            askedOf = transport;
            sender = transport.fileSender(file);
        }
        return sender;
    }

    /** Reads the next chunk; false if the file has no byte at {@link #next}. */
    private boolean fill() throws IOException {
        if (chunk == null) {
            chunk = ByteBuffer.allocate((int) Math.min(CHUNK, unsent)); // heap: every transport copies from it anyway
        }
        chunk.clear().limit((int) Math.min(chunk.capacity(), unsent));
        while (chunk.hasRemaining()) {
            if (file.read(chunk, next + chunk.position()) < 0) {
                break;
            }
        }
        chunk.flip();
        next += chunk.remaining();
        return chunk.hasRemaining();
    }

    private long ended() {
        promise.tryFail(new EOFException("the file ends at position " + next + ", " + unsent
                + " bytes before the end of the range sent (" + count + " bytes asked)"));
        return -1;
    }

    /** Drops what is left (the connection closed, or the send was given up): nothing more is read. */
    void release() {
        chunk = null;
        unsent = 0;
    }
}
