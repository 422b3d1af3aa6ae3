package dev.loop.process;

import dev.loop.Loop;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.io.OutputStream;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;

/**
 * A child's stdin as a write-only {@link IoTransport}. Not thread-safe: the transport side is the
 * loop thread's; a platform thread of its own (the pump, started at the first write) blocks in the
 * pipe's writes.
 *
 * <p>A {@link #write} copies up to one chunk into the pump's buffer and returns how much it took,
 * as a socket's send buffer would; while the pump is still writing that chunk, a write takes
 * nothing, so the stream writer above queues the rest with its watermarks and {@code drain()}
 * works as on a socket. A child that does not read its stdin fills the pipe, the pump blocks, the
 * loop does not. Reading returns end of stream at once: nothing comes back this way.
 *
 * <p>Ending the output ({@link #shutdownOutput}, {@link #close}) is the pump's job after its
 * current write, never the loop's (the JDK's pipe stream is synchronized, and the pump may hold it
 * inside a write the child does not read). Without a pump the stream was never written and is
 * closed at once.
 */
final class PipeSink implements IoTransport {
    private final Loop loop;
    private final OutputStream out;
    private final PipeAddress address;
    private final int chunkSize;
    private byte[] chunk; // made at the first write: a stdin nobody writes holds no buffer
    private final Semaphore work = new Semaphore(0);
    private final Runnable written = this::written;

    // handed to the pump (with a permit of work): the length of the chunk to write, and whether to
    // close after it; the pump clears jobLength when it takes the job, before posting written
    private int jobLength;
    private volatile boolean end;
    // written by the pump before its callSoon
    private IOException failed;

    // the loop's side
    private IoReady ready;
    private boolean wantWrite;
    private boolean started;
    private boolean busy;
    private boolean ended;
    private IOException error;

    PipeSink(Loop loop, OutputStream out, PipeAddress address, int chunkSize) {
        this.loop = loop;
        this.out = out;
        this.address = address;
        this.chunkSize = chunkSize;
    }

    // ------------------------------------------------------------------ the pump's thread

    private void pump() {
        try {
            while (true) {
                work.acquireUninterruptibly();
                int n = jobLength;
                jobLength = 0; // taken: a permit that only says "end" finds nothing to write
                if (n > 0) {
                    try {
                        out.write(chunk, 0, n);
                        out.flush();
                    } catch (IOException e) {
                        failed = e;
                    }
                    try {
                        loop.callSoon(written);
                    } catch (RejectedExecutionException loopClosed) {
                        return;
                    }
                    if (failed != null) {
                        return;
                    }
                }
                if (end) {
                    return;
                }
            }
        } finally {
            Pumps.closeQuietly(out);
        }
    }

    // ------------------------------------------------------------------ the loop's side

    private void written() {
        busy = false;
        if (failed != null) {
            error = failed;
        }
        if (wantWrite && ready != null) {
            ready.onReadyInCallbackPhase(IoReady.WRITE);
        }
    }

    private void hand(int n) {
        jobLength = n;
        busy = n > 0;
        if (!started) {
            started = true;
            Pumps.start(address, this::pump);
        }
        work.release();
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
    public int read(ByteBuffer dst) {
        return -1;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        check();
        if (busy || !src.hasRemaining()) {
            return 0;
        }
        byte[] c = buffer();
        int n = Math.min(src.remaining(), c.length);
        src.get(c, 0, n);
        hand(n);
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        check();
        if (busy) {
            return 0;
        }
        byte[] c = buffer();
        int n = 0;
        for (int i = offset; i < offset + length && n < c.length; i++) {
            ByteBuffer b = srcs[i];
            int take = Math.min(b.remaining(), c.length - n);
            b.get(c, n, take);
            n += take;
        }
        if (n > 0) {
            hand(n);
        }
        return n;
    }

    /** The pump's buffer, made at the first write (before the pump starts, which publishes it). */
    private byte[] buffer() {
        byte[] c = chunk;
        if (c == null) {
            c = chunk = new byte[chunkSize];
        }
        return c;
    }

    private void check() throws IOException {
        if (error != null) {
            throw new IOException("writing to the " + address + " failed (has the child exited?): " + error.getMessage(), error);
        }
        if (ended) {
            throw new ClosedChannelException();
        }
    }

    @Override
    public void shutdownOutput() {
        endOutput();
    }

    private void endOutput() {
        if (ended) {
            return;
        }
        ended = true;
        if (!started) {
            // never written: no pump holds the stream, so closing it cannot wait on a write
            Pumps.closeQuietly(out);
            return;
        }
        // The pump closes after the write it may be in; the permit reaches it whether it is
        // writing now (it sees the flag after that write) or already waiting for work.
        end = true;
        work.release();
    }

    @Override
    public void interest(boolean read, boolean write) {
        wantWrite = write;
        if (ready == null) {
            return;
        }
        if (write && (!busy || error != null)) {
            ready.onReady(IoReady.WRITE);
        }
        if (read) {
            ready.onReady(IoReady.READ); // reads see end of stream at once
        }
    }

    @Override
    public void close() {
        endOutput();
    }

    @Override
    public void abort() {
        endOutput();
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
