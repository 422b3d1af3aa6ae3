package dev.loop.process;

import dev.loop.Loop;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * A child's output (stdout or stderr) as a read-only {@link IoTransport}, so a stream connection
 * reads it as it reads a socket. Not thread-safe: the transport side is the loop thread's; a
 * platform thread of its own (the pump) blocks in the pipe's reads, since the JDK's
 * {@link Process} streams cannot be polled. The pump starts at the first read: output nobody
 * asks for costs no thread, and simply fills the pipe until the child blocks.
 *
 * <p><b>Credit.</b> The pump reads one chunk into {@link #chunk}, hands it to the loop and waits
 * for the loop to take all of it before reading again: one chunk in flight, never more. A chunk
 * nobody reads stays where it is, the pump waits, the kernel's pipe fills and the child blocks in
 * its write; the loop never does. The same buffer goes back and forth, so a steady stream
 * allocates nothing per chunk.
 *
 * <p><b>Closing</b> never touches the stream from the loop thread (the JDK's pipe stream is
 * synchronized, and the pump may be inside a read holding its lock): it tells the pump, which
 * closes the stream after its current read. A child that stays silent with its output open keeps
 * that read, and the pump, until it writes or exits.
 */
final class PipeSource implements IoTransport {
    private final Loop loop;
    private final InputStream in;
    private final PipeAddress address;
    private final int chunkSize;
    private byte[] chunk; // made with the pump: a pipe nobody reads holds no buffer
    private final Semaphore credit = new Semaphore(0);
    private final Runnable arrived = this::arrived;

    // written by the pump before its callSoon, read by the loop in arrived()
    private int handed;
    private IOException handedError;

    // the loop's side
    private IoReady ready;
    private boolean wantRead;
    private int pos;
    private int limit;
    private boolean eof;
    private IOException error;
    private volatile boolean closed;
    private boolean started;

    PipeSource(Loop loop, InputStream in, PipeAddress address, int chunkSize) {
        this.loop = loop;
        this.in = in;
        this.address = address;
        this.chunkSize = chunkSize;
    }

    /** Starts the pump, once, on a daemon platform thread named after the pipe. */
    private void start() {
        if (started || closed) {
            return;
        }
        started = true;
        chunk = new byte[chunkSize]; // before the thread starts, which publishes it to the pump
        Pumps.start(address, this::pump);
    }

    // ------------------------------------------------------------------ the pump's thread

    private void pump() {
        try {
            while (!closed) {
                int n;
                IOException failed = null;
                try {
                    n = in.read(chunk, 0, chunk.length);
                } catch (IOException e) {
                    n = -1;
                    failed = e;
                }
                if (closed) {
                    return;
                }
                handed = n;
                handedError = failed;
                try {
                    loop.callSoon(arrived);
                } catch (RejectedExecutionException loopClosed) {
                    return;
                }
                if (n < 0) {
                    return;
                }
                credit.acquireUninterruptibly();
            }
        } finally {
            Pumps.closeQuietly(in);
        }
    }

    // ------------------------------------------------------------------ the loop's side

    /** A chunk, the end of the stream or a failure came from the pump. */
    private void arrived() {
        if (closed) {
            return;
        }
        if (handedError != null) {
            error = handedError;
        } else if (handed < 0) {
            eof = true;
        } else {
            pos = 0;
            limit = handed;
        }
        if (wantRead && ready != null) {
            ready.onReadyInCallbackPhase(IoReady.READ);
        }
    }

    @Override
    public void attach(IoReady ready) {
        this.ready = ready;
    }

    @Override
    public boolean finishConnect() {
        return true;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        start();
        int available = limit - pos;
        if (available > 0) {
            int n = Math.min(available, dst.remaining());
            dst.put(chunk, pos, n);
            pos += n;
            if (pos == limit) {
                pos = limit = 0;
                credit.release(); // all taken: the pump may read the next chunk into the buffer
            }
            return n;
        }
        if (error != null) {
            throw new IOException("reading the " + address + " failed: " + error.getMessage(), error);
        }
        return eof ? -1 : 0;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        throw new IOException("the " + address + " is read-only: write to the child's stdin");
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        throw new IOException("the " + address + " is read-only: write to the child's stdin");
    }

    @Override
    public void shutdownOutput() {
        // nothing goes out this way: there is no output to end
    }

    @Override
    public void interest(boolean read, boolean write) {
        wantRead = read;
        if (read) {
            start();
        }
        if (ready == null) {
            return;
        }
        if (read && (limit > pos || eof || error != null)) {
            ready.onReady(IoReady.READ);
        }
        if (write) {
            ready.onReady(IoReady.WRITE); // so the writer tries, and hears that this pipe is read-only
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (started) {
                credit.release(); // a pump waiting for credit wakes, sees closed, closes the stream
            } else {
                // no pump, so nobody is inside a read holding the stream's lock: closing cannot wait
                Pumps.closeQuietly(in);
            }
        }
    }

    @Override
    public void abort() {
        close();
    }

    @Override
    public SocketAddress localAddress() {
        return address;
    }

    @Override
    public SocketAddress remoteAddress() {
        return address;
    }
}
