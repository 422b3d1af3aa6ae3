package dev.loop.select;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.SocketException;
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
 * ids (its {@code jdk.net.ExtendedSocketOptions.SO_PEERCRED} gives user and group <em>names</em>).
 */
final class SelectUnixIo implements UnixIo {
    private final Selector selector;

    SelectUnixIo(Selector selector) {
        this.selector = selector;
    }

    @Override
    public IoServerSocket listen(UnixDomainSocketAddress path, int backlog, Map<SocketOption<?>, Object> options,
                                 IoReady ready) throws IOException {
        ServerSocketChannel ch = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.configureBlocking(false);
            SelectNetIo.applyAll(ch, options);
            try {
                ch.bind(path, backlog);
            } catch (BindException e) {
                BindException named = new BindException(e.getMessage() + ": " + path);
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
    public IoSocket connect(UnixDomainSocketAddress path, Map<SocketOption<?>, Object> options, IoReady ready)
            throws IOException {
        SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX);
        try {
            ch.configureBlocking(false);
            SelectNetIo.applyAll(ch, options);
            SelectSocket s = new SelectSocket(selector, ch, ready, false);
            if (ch.connect(path)) {
                s.connectedAtOnce();
            }
            return s;
        } catch (SocketException e) {
            // ECONNREFUSED comes as a ConnectException, ENOENT as a plain SocketException: both mean
            // nothing listens there
            ch.close();
            ConnectException named = new ConnectException(e.getMessage() + ": " + path);
            named.initCause(e);
            throw named;
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

    @Override
    public IoPeerCredentials peerCredentials(IoSocket socket) {
        throw new UnsupportedOperationException("cannot read a peer's process id and numeric user and group ids: the"
                + " JDK's SO_PEERCRED (jdk.net.ExtendedSocketOptions) gives user and group names only");
    }
}
