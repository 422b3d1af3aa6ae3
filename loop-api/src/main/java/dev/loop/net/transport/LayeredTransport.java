package dev.loop.net.transport;

import dev.loop.Loop;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;

/**
 * The plumbing of an {@link IoTransport} that wraps another (TLS), not thread-safe (loop thread only):
 * the inner transport reports to this layer, which is a {@link CoalescedReadiness} of its own; the
 * layer does its own work in {@link #ready} and passes readiness up with {@link #deliver}, at once
 * and only for the directions the receiver above asked for. Also the interest asked from above
 * versus the interest asked below, and the calls that only forward.
 */
public abstract class LayeredTransport extends CoalescedReadiness implements IoTransport {
    protected final IoTransport inner;
    protected IoReady up;
    protected boolean wantRead;         // the interest asked from above
    protected boolean wantWrite;
    private boolean innerRead;  // the interest last asked of the inner transport
    private boolean innerWrite;
    private final ByteBuffer[] single = new ByteBuffer[1];

    /** A layer over {@code inner}, which reports here from now on. */
    protected LayeredTransport(Loop loop, IoTransport inner, IoReady up) {
        super(loop);
        this.inner = inner;
        this.up = up;
        inner.attach(this);
    }

    /**
     * Adopts the interest a receiver above had already asked of {@code inner} directly (the layer
     * is put in under an open connection), so only changes are passed on from here.
     */
    protected final void adoptInterest(boolean read, boolean write) {
        wantRead = innerRead = read;
        wantWrite = innerWrite = write;
    }

    /** Asks the inner transport for {@code read}/{@code write} if that is a change. */
    protected final void innerInterest(boolean read, boolean write) {
        if (read != innerRead || write != innerWrite) {
            innerRead = read;
            innerWrite = write;
            inner.interest(read, write);
        }
    }

    /**
     * Passes {@code ops} up, only the directions asked for (errors always), at once: the caller is
     * this layer's own callback, already in the callback phase, so a second {@code callSoon} (and a
     * loop iteration per event) is saved.
     */
    protected final void deliver(int ops) {
        int o = ops & ((wantRead ? READ : 0) | (wantWrite ? WRITE : 0) | ERROR | HANGUP);
        if (o == 0) {
            return;
        }
        up.onReadyInCallbackPhase(o);
    }

    @Override
    public final void attach(IoReady ready) {
        up = ready;
    }

    @Override
    public final int write(ByteBuffer src) throws IOException {
        single[0] = src; // the gathering form with a reused array: nothing allocated per write
        try {
            return (int) write(single, 0, 1);
        } finally {
            single[0] = null;
        }
    }

    @Override
    public final SocketAddress localAddress() {
        return inner.localAddress();
    }

    @Override
    public final SocketAddress remoteAddress() {
        return inner.remoteAddress();
    }
}
