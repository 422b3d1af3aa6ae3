package dev.loop.select;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;

/**
 * Unix domain stream sockets on the loop's selector: the JDK's {@code SocketChannel} and
 * {@code ServerSocketChannel} of family {@link StandardProtocolFamily#UNIX}. Not thread-safe: loop
 * thread only, or any thread while the loop is not running.
 *
 * <p>What the JDK does not offer is refused with a reason: Linux abstract names (a
 * {@link UnixDomainSocketAddress} holds a file system path) and the peer's process and numeric
 * ids ({@link SelectSocket#peerCredentials}: the JDK gives user and group <em>names</em>).
 */
final class SelectUnixIo implements UnixIo {
    private final Selector selector;

    SelectUnixIo(Selector selector) {
        this.selector = selector;
    }

    @Override
    public IoServerSocket listen(UnixDomainSocketAddress path, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        ServerSocketChannel ch = SelectNetIo.opened(() -> ServerSocketChannel.open(StandardProtocolFamily.UNIX));
        try {
            ch.configureBlocking(false);
            SelectNetIo.applyAll(ch, options);
            try {
                ch.bind(path, backlog);
            } catch (IOException e) {
                throw SocketErrors.translate(Call.BIND, e, path);
            }
            return new SelectServerSocket(selector, ch, ready);
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public IoSocket connect(UnixDomainSocketAddress path, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        SocketChannel ch = SelectNetIo.opened(() -> SocketChannel.open(StandardProtocolFamily.UNIX));
        try {
            ch.configureBlocking(false);
            SelectNetIo.applyAll(ch, options);
            SelectSocket s = new SelectSocket(selector, ch, ready, false).connectingTo(path);
            boolean done;
            try {
                done = ch.connect(path);
            } catch (IOException e) {
                // ECONNREFUSED comes as a ConnectException, ENOENT as a plain SocketException: the
                // table makes both a ConnectException naming the path, as the native backends do
                throw SocketErrors.translate(Call.CONNECT, e, path);
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
    public IoServerSocket listenAbstract(String name, int backlog, Map<SocketOption<?>, Object> options,
                                         IoReady ready) {
        throw new UnsupportedOperationException(
                "no Linux abstract socket names: the JDK's UnixDomainSocketAddress holds file system paths only");
    }

    @Override
    public IoSocket connectAbstract(String name, Map<SocketOption<?>, Object> options, IoReady ready) {
        throw new UnsupportedOperationException(
                "no Linux abstract socket names: the JDK's UnixDomainSocketAddress holds file system paths only");
    }
}
