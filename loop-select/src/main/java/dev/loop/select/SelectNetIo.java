package dev.loop.select;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.channels.NetworkChannel;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;

/**
 * TCP sockets on one loop's {@link Selector}: {@code SocketChannel}s and
 * {@code ServerSocketChannel}s in non-blocking mode, each registered with the selector on its first
 * interest. Not thread-safe: loop thread only, or any thread while the loop is not running.
 */
final class SelectNetIo implements NetIo {
    private final Selector selector;

    SelectNetIo(Selector selector) {
        this.selector = selector;
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
}
