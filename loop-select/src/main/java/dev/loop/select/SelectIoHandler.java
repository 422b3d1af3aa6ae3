package dev.loop.select;

import dev.loop.spi.IoHandler;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The I/O side of a loop on one JDK {@link Selector}. Not thread-safe, except {@link #wakeup()}.
 *
 * <p>Readiness is dispatched through {@link Selector#select(Consumer, long)}, which hands each
 * selected key to one consumer without building the selected-key set, so a poll allocates nothing
 * per event. Each key's attachment is the {@link Consumer} that handles it.
 *
 * <p>Sockets ({@link NetIo}) are {@code SocketChannel}s and {@code ServerSocketChannel}s in
 * non-blocking mode, registered once with this selector.
 */
public final class SelectIoHandler implements IoHandler, NetIo {
    private static final long RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    private final Selector selector;
    private final Consumer<SelectionKey> dispatch = SelectIoHandler::dispatch;

    public SelectIoHandler() throws IOException {
        this.selector = Selector.open();
    }

    /** The selector sockets register with; loop thread only. */
    public Selector selector() {
        return selector;
    }

    @Override
    public int poll(long timeoutNanos) throws IOException {
        if (timeoutNanos == 0) {
            if (selector.keys().isEmpty()) {
                // No channel is registered, so selectNow() could report nothing. The one thing it
                // would change is to consume a pending wakeup(): left pending, that wakeup makes the
                // next blocking select return at once, a spurious wake-up the engine already
                // tolerates. Closed channels keep their key in keys() until a select deregisters
                // it (and the JDK releases their fd then), so this never delays that.
                return 0;
            }
            return selector.selectNow(dispatch);
        }
        if (timeoutNanos < 0) {
            return selector.select(dispatch);
        }
        // Round down: the engine parks for whatever remains below a millisecond.
        long millis = timeoutNanos / RESOLUTION_NANOS;
        return millis == 0 ? selector.selectNow(dispatch) : selector.select(dispatch, millis);
    }

    @SuppressWarnings("unchecked")
    private static void dispatch(SelectionKey key) {
        Object handler = key.attachment();
        if (handler instanceof SelectChannel c) {
            c.accept(key); // the common case, without the cast through Consumer
        } else if (handler instanceof Consumer<?> c) {
            ((Consumer<SelectionKey>) c).accept(key);
        }
    }

    @Override
    public NetIo net() {
        return this;
    }

    @Override
    public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        ServerSocketChannel ch = ServerSocketChannel.open();
        try {
            ch.configureBlocking(false);
            apply(ch, options);
            try {
                ch.bind(local, backlog);
            } catch (BindException e) {
                BindException named = new BindException(e.getMessage() + ": " + local);
                named.initCause(e);
                throw named;
            }
            return new SelectServerSocket(selector, ch, ready);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public IoSocket connect(InetSocketAddress remote, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        SocketChannel ch = SocketChannel.open();
        try {
            ch.configureBlocking(false);
            apply(ch, options);
            SelectSocket s = new SelectSocket(selector, ch, ready, false);
            if (ch.connect(remote)) {
                s.connectedAtOnce();
            }
            return s;
        } catch (ConnectException e) {
            ch.close();
            ConnectException named = new ConnectException(e.getMessage() + ": " + remote);
            named.initCause(e);
            throw named;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public IoSocket adopt(IoSocket accepted) {
        if (!(accepted instanceof SelectSocket s)) {
            throw new IllegalArgumentException("not a select socket: " + accepted);
        }
        // Never registered with the accepting loop's selector (registration waits for the first
        // interest), so the channel simply changes hands; the old handle is dropped.
        return new SelectSocket(selector, (SocketChannel) s.channel, null, true);
    }

    @SuppressWarnings("unchecked")
    private static void apply(NetworkChannel ch, Map<SocketOption<?>, Object> options) throws IOException {
        for (Map.Entry<SocketOption<?>, Object> e : options.entrySet()) {
            SocketOption<Object> o = (SocketOption<Object>) e.getKey();
            if (!ch.supportedOptions().contains(o)) {
                throw new UnsupportedOperationException("backend select does not support " + o.name()
                        + " on this platform" + (e.getKey() == StandardSocketOptions.SO_REUSEPORT
                        ? " (the JDK offers SO_REUSEPORT only where the kernel has it)" : ""));
            }
            ch.setOption(o, e.getValue());
        }
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public long resolutionNanos() {
        return RESOLUTION_NANOS;
    }

    @Override
    public void close() {
        try {
            Set<SelectionKey> keys = selector.keys();
            for (SelectionKey k : keys.toArray(new SelectionKey[0])) {
                try {
                    k.channel().close();
                } catch (IOException e) {
                    // closing what the loop still owns; one failure must not keep the rest open
                }
            }
            selector.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the selector failed", e);
        }
    }
}
