package dev.loop.examples.http;

import dev.loop.Loop;
import dev.loop.net.Connection;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * Sends a large file's bytes after its response head, at the pace the client reads. Not
 * thread-safe: runs on the connection's loop (with offloaded reads, only the read itself runs on a
 * virtual thread, into a buffer the loop does not touch meanwhile).
 *
 * <p>Over plain TCP the connection sends the file itself ({@link Connection#sendFile}: the
 * kernel's {@code sendfile(2)} where the backend has it, so no byte passes through the JVM), in
 * segments of {@link #SEGMENT} bytes, two queued at a time, each one's completion counting as
 * progress for the idle timeout. Over TLS the bytes must be encrypted in the JVM, so the file is read here, a chunk at a
 * time, on the loop or on a virtual thread as configured:
 *
 * <p>It stops when the connection is not {@linkplain Connection#isWritable() writable} and goes on
 * once it has {@linkplain Connection#drain() drained}, so a slow reader costs at most the high
 * watermark in memory; and it yields to the loop after {@link #BYTES_PER_TURN} bytes, so a fast
 * reader of a large file does not keep other connections waiting.
 */
final class FileStream {
    static final int CHUNK = 64 * 1024;
    /** Bytes sent before handing the loop back to other callbacks. */
    static final int BYTES_PER_TURN = 256 * 1024;
    /**
     * Bytes per {@code sendFile} call: the next is queued when one has been handed to the kernel,
     * whose send buffer still holds its end, so the socket never waits for the next call; and a
     * client that keeps reading is seen to make progress at least this often.
     */
    static final long SEGMENT = 4L << 20;

    private final Loop loop;
    private final Connection conn;
    private final StaticFiles.Opened file;
    private final boolean offload;
    private final ByteBuffer buf;
    private final Runnable done;
    private final Runnable progress;
    private final Consumer<Throwable> failed;
    private final Runnable pump = this::pump;
    private final long end;
    private long position;
    /** With {@code sendFile}: the end of what was queued so far (a segment or two past {@link #position}). */
    private long queued;

    /**
     * @param first     the first byte to send
     * @param count     how many bytes to send from {@code first}
     * @param loopChunk a buffer the loop lends for on-loop reads (unused when reads are offloaded)
     * @param done      called once every byte was handed to the connection
     * @param progress  called after each chunk handed to the connection
     * @param failed    called if reading fails or the file shrinks; the response is then broken
     */
    FileStream(Connection conn, StaticFiles.Opened file, long first, long count, boolean offload, ByteBuffer loopChunk,
               Runnable done, Runnable progress, Consumer<Throwable> failed) {
        this.loop = conn.loop();
        this.conn = conn;
        this.file = file;
        this.position = first;
        this.queued = first;
        this.end = first + count;
        this.offload = offload;
        this.buf = offload ? ByteBuffer.allocate(CHUNK) : loopChunk;
        this.done = done;
        this.progress = progress;
        this.failed = failed;
    }

    void start() {
        if (conn.tls() == null) {
            sendSegments();
        } else {
            pump();
        }
    }

    /**
     * Plain TCP: the connection sends the file itself, one segment queued behind another so the
     * queue never runs dry between them (which would turn write interest off and on again, two
     * {@code epoll_ctl} calls per segment).
     */
    private void sendSegments() {
        queueSegment();
        queueSegment();
    }

    private void queueSegment() {
        if (queued >= end) {
            return;
        }
        long count = Math.min(SEGMENT, end - queued);
        queued += count;
        conn.sendFile(file.channel(), queued - count, count).onDone(f -> {
            if (position < 0) {
                return; // an earlier segment failed: this one failed or was cancelled with it
            }
            if (!f.isSuccess()) {
                position = -1;
                if (conn.isOpen()) {
                    fail(f.exception()); // the file is shorter than its size now: the response is broken
                } else {
                    file.close(); // the client went away: nothing to report, as in pump()
                }
                return;
            }
            position += count;
            progress.run();
            if (position < end) {
                queueSegment();
            } else {
                file.close();
                done.run();
            }
        });
    }

    private void pump() {
        int budget = BYTES_PER_TURN;
        while (position < end) {
            if (!conn.isOpen()) {
                file.close();
                return;
            }
            if (!conn.isWritable()) {
                conn.drain().onDone(f -> pump());
                return;
            }
            if (budget <= 0) {
                loop.callSoon(pump);
                return;
            }
            if (offload) {
                loop.offload(this::read).onDone(f -> {
                    if (!f.isSuccess()) {
                        fail(f.exception());
                    } else if (send(f.result())) {
                        pump();
                    }
                });
                return;
            }
            int n;
            try {
                n = read();
            } catch (IOException e) {
                fail(e);
                return;
            }
            if (!send(n)) {
                return;
            }
            budget -= n;
        }
        file.close();
        done.run();
    }

    /** Reads the next chunk into {@code buf}; on the loop, or on an offload thread. */
    private int read() throws IOException {
        buf.clear().limit((int) Math.min(CHUNK, end - position));
        return file.channel().read(buf, position);
    }

    private boolean send(int n) {
        if (n <= 0) {
            fail(new EOFException("file shrank to " + position + " of " + end + " bytes while being sent"));
            return false;
        }
        if (!conn.isOpen()) {
            file.close();
            return false;
        }
        buf.flip();
        conn.write(buf); // copies what the kernel does not take, so buf is free again
        position += n;
        progress.run();
        return true;
    }

    private void fail(Throwable e) {
        file.close();
        failed.accept(e);
    }
}
