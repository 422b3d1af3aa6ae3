package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.PeerCredentials;
import dev.loop.net.TlsInfo;
import dev.loop.net.TlsOptions;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A connection without a socket, for measuring a protocol server's parse-and-answer path alone:
 * the benchmark hands request bytes to the handler the server set, as the loop would with what it
 * read, and every write is taken whole at once, as a kernel with room takes it. Only what a
 * server's steady state calls is supported; the rest throws, so a benchmark that wanders off the
 * path fails instead of measuring something else. Not thread-safe: its loop's thread only.
 *
 * <p>Writes are counted, not kept, so the connection itself allocates nothing per request; while
 * {@link #capture} is on (set-up only) the bytes are also copied, for checking the answers.
 */
public final class InMemoryConnection implements Connection {
    private static final InetSocketAddress LOCAL = new InetSocketAddress(InetAddress.getLoopbackAddress(), 8080);
    private static final InetSocketAddress REMOTE = new InetSocketAddress(InetAddress.getLoopbackAddress(), 40000);

    private final Loop loop;
    private final Promise<Void> written; // every write completes at once: one completed future serves all
    private final Promise<Void> closed;
    private ConnectionHandler handler;
    private long bytesWritten;
    private long writes;
    private ByteArrayOutputStream capture;
    private boolean paused;

    public InMemoryConnection(Loop loop) {
        this.loop = loop;
        this.written = loop.newPromise();
        written.complete(null);
        this.closed = loop.newPromise();
    }

    /** Hands {@code data} to the handler as one read; on the loop thread. */
    public void receive(ByteBuffer data) {
        if (paused) {
            throw new IllegalStateException("the server paused reading: the benchmark left the steady state");
        }
        handler.onData(this, data);
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    public long writes() {
        return writes;
    }

    /** Starts copying what is written, or stops (null) and returns what was copied. */
    public byte[] capture(boolean on) {
        byte[] got = capture == null ? null : capture.toByteArray();
        capture = on ? new ByteArrayOutputStream() : null;
        return got;
    }

    @Override
    public Loop loop() {
        return loop;
    }

    @Override
    public void setHandler(ConnectionHandler h) {
        this.handler = h;
    }

    @Override
    public void pauseReading() {
        paused = true;
    }

    @Override
    public void resumeReading() {
        paused = false;
    }

    @Override
    public LoopFuture<Void> write(ByteBuffer src) {
        int n = src.remaining();
        if (capture != null) {
            byte[] copy = new byte[n];
            src.duplicate().get(copy);
            capture.writeBytes(copy);
        }
        src.position(src.limit());
        bytesWritten += n;
        writes++;
        return written;
    }

    @Override
    public boolean isWritable() {
        return true;
    }

    @Override
    public long queuedBytes() {
        return 0;
    }

    @Override
    public LoopFuture<Void> drain() {
        return written;
    }

    @Override
    public boolean isOpen() {
        return !closed.isDone();
    }

    @Override
    public boolean isInputShutdown() {
        return false;
    }

    @Override
    public LoopFuture<Void> close() {
        if (!closed.isDone()) {
            closed.complete(null);
            if (handler != null) {
                handler.onClosed(this, null);
            }
        }
        return closed;
    }

    @Override
    public void abort() {
        close();
    }

    @Override
    public LoopFuture<Void> closeFuture() {
        return closed;
    }

    @Override
    public InetSocketAddress localAddress() {
        return LOCAL;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return REMOTE;
    }

    @Override
    public ConnectionOptions options() {
        return ConnectionOptions.defaults();
    }

    @Override
    public TlsInfo tls() {
        return null;
    }

    @Override
    public LoopFuture<Integer> read(ByteBuffer dst) {
        throw unsupported("read");
    }

    @Override
    public LoopFuture<ByteBuffer> readExactly(int n) {
        throw unsupported("readExactly");
    }

    @Override
    public LoopFuture<ByteBuffer> readUntil(byte[] delimiter, int maxLength) {
        throw unsupported("readUntil");
    }

    @Override
    public LoopFuture<String> readLine(int maxLength) {
        throw unsupported("readLine");
    }

    @Override
    public LoopFuture<Long> sendFile(FileChannel file, long position, long count) {
        throw unsupported("sendFile");
    }

    @Override
    public void shutdownOutput() {
        throw unsupported("shutdownOutput");
    }

    @Override
    public LoopFuture<Connection> startTls(TlsOptions tls) {
        throw unsupported("startTls");
    }

    @Override
    public PeerCredentials peerCredentials() {
        throw unsupported("peerCredentials");
    }

    private static UnsupportedOperationException unsupported(String what) {
        return new UnsupportedOperationException(what + " is not on the parse-and-answer path this connection measures");
    }
}
