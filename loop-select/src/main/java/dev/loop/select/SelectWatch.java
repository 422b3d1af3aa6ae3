package dev.loop.select;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoWatch;
import java.io.IOException;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.IllegalBlockingModeException;
import java.nio.channels.SelectableChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * A program's own {@link SelectableChannel} watched on the loop's selector (asyncio's
 * {@code add_reader}/{@code add_writer}). Not thread-safe: loop thread only.
 *
 * <p>The channel is registered at once (so a blocking or closed channel is refused when watching
 * starts, not at the first interest) with no ops; "read" maps to whichever of {@code OP_READ} and
 * {@code OP_ACCEPT} the channel has, "write" to {@code OP_WRITE}. Closing the watch cancels the key
 * and leaves the channel open: it is the program's.
 */
final class SelectWatch implements IoWatch, Selected {
    private final SelectableChannel channel;
    private final IoReady ready;
    private final SelectionKey key;
    private final int readOps;
    private final int writeOps;
    private int ops;

    SelectWatch(Selector selector, SelectableChannel channel, IoReady ready) throws IOException {
        this.channel = channel;
        this.ready = ready;
        int valid = channel.validOps();
        this.readOps = valid & (SelectionKey.OP_READ | SelectionKey.OP_ACCEPT);
        this.writeOps = valid & SelectionKey.OP_WRITE;
        SelectionKey existing = channel.keyFor(selector);
        if (existing != null && existing.isValid()) {
            throw new IllegalArgumentException(channel + " is already registered with this loop's selector");
        }
        if (existing != null) {
            // unwatched in this iteration: the selector drops a cancelled key only when it next
            // selects, and registering again before that is refused; a readiness check that reports
            // to nobody lets it go now (readiness is level-triggered: nothing is lost)
            selector.selectNow();
            selector.selectedKeys().clear();
        }
        try {
            this.key = channel.register(selector, 0, this);
        } catch (IllegalBlockingModeException e) {
            throw new IllegalArgumentException(channel + " is in blocking mode: configureBlocking(false) first", e);
        } catch (ClosedChannelException e) {
            throw new IllegalArgumentException(channel + " is closed", e);
        } catch (CancelledKeyException e) {
            throw new IllegalStateException(channel + " was unwatched and is still being released", e);
        }
    }

    @Override
    public void interest(boolean read, boolean write) {
        if (read && readOps == 0) {
            throw new IllegalArgumentException(channel + " cannot be read (its valid operations are "
                    + channel.validOps() + ")");
        }
        if (write && writeOps == 0) {
            throw new IllegalArgumentException(channel + " cannot be written (its valid operations are "
                    + channel.validOps() + ")");
        }
        int wanted = (read ? readOps : 0) | (write ? writeOps : 0);
        if (wanted == ops || !key.isValid()) {
            return;
        }
        try {
            key.interestOps(wanted);
            ops = wanted;
        } catch (CancelledKeyException closed) {
            // the program closed its channel: nothing left to watch
        }
    }

    @Override
    public IoReady receiver() {
        return ready;
    }

    @Override
    public int readyBits(SelectionKey k) {
        int r;
        try {
            r = k.readyOps();
        } catch (CancelledKeyException closed) {
            return 0;
        }
        return ((r & readOps) != 0 ? IoReady.READ : 0) | ((r & writeOps) != 0 ? IoReady.WRITE : 0);
    }

    @Override
    public void close() {
        key.cancel();
    }

    @Override
    public boolean isOpen() {
        return key.isValid();
    }

    @Override
    public String toString() {
        return "SelectWatch[" + channel + "]";
    }
}
