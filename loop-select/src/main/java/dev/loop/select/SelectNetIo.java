package dev.loop.select;

import dev.loop.spi.DatagramIo;
import dev.loop.spi.IoDatagram;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.IoWatch;
import dev.loop.spi.NetIo;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import dev.loop.spi.WatchIo;
import java.io.IOException;
import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.SelectableChannel;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;

/**
 * Sockets on one loop's {@link Selector}: TCP {@code SocketChannel}s and
 * {@code ServerSocketChannel}s in non-blocking mode, each registered with the selector on its first
 * interest; {@code DatagramChannel}s for UDP; the same channels of family {@code UNIX}
 * ({@link SelectUnixIo}); and the program's own channels ({@link SelectWatch}). Not thread-safe: loop thread only, or any thread while the loop is not running.
 */
final class SelectNetIo implements NetIo {
    private final Selector selector;
    private final DatagramIo datagrams = this::openDatagram;
    private final WatchIo watches;
    private UnixIo unix;

    SelectNetIo(Selector selector) {
        this.selector = selector;
        this.watches = new WatchIo() {
            @Override
            public IoWatch watch(SelectableChannel channel, IoReady ready) throws IOException {
                return new SelectWatch(selector, channel, ready);
            }

            @Override
            public IoWatch watch(int fd, IoReady ready) {
                throw new UnsupportedOperationException("cannot watch a raw file descriptor: the JDK's Selector"
                        + " registers SelectableChannels only (backend epoll watches descriptors)");
            }
        };
    }

    @Override
    public IoServerSocket listen(InetSocketAddress local, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        ServerSocketChannel ch = opened(ServerSocketChannel::open);
        try {
            ch.configureBlocking(false);
            applyAll(ch, options);
            try {
                ch.bind(local, backlog);
            } catch (IOException e) {
                throw SocketErrors.translate(Call.BIND, e, local);
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
        SocketChannel ch = opened(SocketChannel::open);
        try {
            ch.configureBlocking(false);
            applyAll(ch, options);
            SelectSocket s = new SelectSocket(selector, ch, ready, false).connectingTo(remote);
            boolean done;
            try {
                done = ch.connect(remote);
            } catch (IOException e) {
                throw SocketErrors.translate(Call.CONNECT, e, remote);
            }
            if (done) {
                s.connectedAtOnce();
            }
            return s;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public IoSocket adopt(IoSocket accepted) {
        return SelectSocket.adopted(accepted, selector);
    }

    static void applyAll(NetworkChannel ch, Map<SocketOption<?>, Object> options) throws IOException {
        for (Map.Entry<SocketOption<?>, Object> e : options.entrySet()) {
            apply(ch, e.getKey(), e.getValue());
        }
    }

    /**
     * Sets one option on a channel that supports it.
     *
     * @throws UnsupportedOperationException naming the option and the backend otherwise
     */
    @SuppressWarnings("unchecked")
    static void apply(NetworkChannel ch, SocketOption<?> option, Object value) throws IOException {
        SocketOption<Object> o = (SocketOption<Object>) option;
        if (!ch.supportedOptions().contains(o)) {
            throw new UnsupportedOperationException("backend select does not support " + o.name()
                    + " on this platform" + (option == StandardSocketOptions.SO_REUSEPORT
                    ? " (the JDK offers SO_REUSEPORT only where the kernel has it)" : ""));
        }
        ch.setOption(o, value);
    }

    @Override
    public DatagramIo datagrams() {
        return datagrams;
    }

    @Override
    public boolean kernelSockets() {
        return true;
    }

    private IoDatagram openDatagram(InetSocketAddress local, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        DatagramChannel ch = opened(() -> DatagramChannel.open(local.getAddress() instanceof Inet6Address
                ? StandardProtocolFamily.INET6 : StandardProtocolFamily.INET));
        try {
            ch.configureBlocking(false);
            applyAll(ch, options);
            try {
                ch.bind(local);
            } catch (IOException e) {
                throw SocketErrors.translate(Call.BIND, e, local);
            }
            return new SelectDatagram(selector, ch, ready);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** Opens a channel; see {@link #opened}. */
    @FunctionalInterface
    interface Opener<C> {
        C open() throws IOException;
    }

    /** The channel {@code opener} opens, or why not as {@link SocketErrors} has it (the open-file limit, typically). */
    static <C> C opened(Opener<C> opener) throws IOException {
        try {
            return opener.open();
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
    }

    @Override
    public UnixIo unix() {
        if (unix == null) {
            unix = new SelectUnixIo(selector);
        }
        return unix;
    }

    @Override
    public WatchIo watches() {
        return watches;
    }
}
