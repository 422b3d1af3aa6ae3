package dev.loop.select;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.SocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * A listening {@link ServerSocketChannel} (TCP or Unix domain) on the loop's selector. Not
 * thread-safe: loop thread only.
 */
final class SelectServerSocket extends SelectChannel implements IoServerSocket {
    static {
        // Accept fails at the open-file limit, where loading a class from a directory (rather than
        // an open jar) fails too: opening its file needs a descriptor. Run the failure path's
        // translation once now, while descriptors are to be had, so what it needs is loaded.
        SocketErrors.translate(Call.IO, new IOException(), null);
    }

    private final ServerSocketChannel server;
    private final SocketAddress local;

    SelectServerSocket(Selector selector, ServerSocketChannel server, IoReady ready) throws IOException {
        super(selector, server, ready);
        this.server = server;
        this.local = server.getLocalAddress(); // an InetSocketAddress, or a UnixDomainSocketAddress
    }

    @Override
    int opsFor(boolean read, boolean write) {
        return read ? SelectionKey.OP_ACCEPT : 0;
    }

    @Override
    public IoSocket accept() throws IOException {
        SocketChannel ch;
        try {
            ch = server.accept();
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null); // at the open-file limit, typically
        }
        if (ch == null) {
            return null;
        }
        try {
            ch.configureBlocking(false);
            return new SelectSocket(selector, ch, null, true);
        } catch (IOException | UncheckedIOException e) {
            ch.close();
            throw e;
        }
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public String toString() {
        return "SelectServerSocket[" + local + "]";
    }
}
