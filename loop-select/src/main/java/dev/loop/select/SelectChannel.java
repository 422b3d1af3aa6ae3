package dev.loop.select;

import dev.loop.spi.IoReady;
import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * What the two socket kinds share on a {@link Selector}: the channel is registered once, when
 * interest is first asked for, with itself as the key's attachment; interest ops are written only
 * when they change. Not thread-safe: loop thread only.
 */
abstract class SelectChannel implements Selected {
    final Selector selector;
    final SelectableChannel channel;
    IoReady ready;
    private SelectionKey key;
    private int ops;

    SelectChannel(Selector selector, SelectableChannel channel, IoReady ready) {
        this.selector = selector;
        this.channel = channel;
        this.ready = ready;
    }

    /** The selector ops for "read" and "write" in this channel's present state. */
    abstract int opsFor(boolean read, boolean write);

    public final void interest(boolean read, boolean write) {
        if (!channel.isOpen()) {
            return;
        }
        int wanted = opsFor(read, write);
        if (key == null) {
            if (wanted == 0) {
                return;
            }
            try {
                key = channel.register(selector, wanted, this);
            } catch (IOException e) {
                throw new IllegalStateException("registering " + channel + " with the selector failed", e);
            }
        } else if (wanted != ops) {
            try {
                key.interestOps(wanted);
            } catch (CancelledKeyException closed) {
                return;
            }
        }
        ops = wanted;
    }

    /** Re-applies the interest after a state change that maps it to other ops (connect done). */
    final void reapply(boolean read, boolean write) {
        int wanted = opsFor(read, write);
        if (key != null && wanted != ops && key.isValid()) {
            key.interestOps(wanted);
            ops = wanted;
        }
    }

    final int currentOps() {
        return ops;
    }

    @Override
    public final IoReady receiver() {
        return ready;
    }

    @Override
    public final int readyBits(SelectionKey k) {
        int r;
        try {
            r = k.readyOps();
        } catch (CancelledKeyException closed) {
            return 0;
        }
        int bits = 0;
        if ((r & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT)) != 0) {
            bits |= IoReady.READ;
        }
        if ((r & (SelectionKey.OP_WRITE | SelectionKey.OP_CONNECT)) != 0) {
            bits |= IoReady.WRITE;
        }
        return bits;
    }

    public final boolean isOpen() {
        return channel.isOpen();
    }

    public void close() {
        try {
            channel.close(); // also cancels the key; the selector releases the fd on its next select
        } catch (IOException e) {
            // nothing left to do with a socket that failed to close
        }
    }
}
