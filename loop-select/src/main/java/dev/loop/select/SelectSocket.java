package dev.loop.select;

import dev.loop.spi.IoFileSender;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;

/**
 * A non-blocking {@link SocketChannel} (TCP or Unix domain) on the loop's selector. Not thread-safe: loop thread only.
 *
 * <p>While connecting, "write" interest is {@code OP_CONNECT}; once connected it is
 * {@code OP_WRITE}.
 *
 * <p>Files go out through {@link FileChannel#transferTo}, which on Linux is {@code sendfile(2)}
 * from the file to this channel's descriptor (the JDK's own zero-copy path); on a non-blocking
 * channel a full send buffer makes it return 0, as a write does.
 */
final class SelectSocket extends SelectChannel implements IoSocket, IoFileSender {
    private final SocketChannel ch;
    private boolean connected;
    private boolean wantRead;
    private boolean wantWrite;
    private SocketAddress local;
    private SocketAddress remote;
    /** Where a connect in progress goes: what its failure names. */
    private SocketAddress target;

    /**
     * {@code accepted}, which another loop of the group accepted, as a socket of the loop that polls
     * {@code selector} (see {@code NetIo.adopt}). Never registered with the accepting loop's selector
     * (registration waits for the first interest), so the channel simply changes hands; the old
     * handle is dropped. Only this class can tell its own sockets from another backend's: the SPI
     * cannot name either type.
     *
     * @throws IllegalArgumentException if {@code accepted} is another backend's
     */
    static SelectSocket adopted(IoSocket accepted, Selector selector) {
        if (!(accepted instanceof SelectSocket s)) {
            throw new IllegalArgumentException("not a select socket: " + accepted);
        }
        return new SelectSocket(selector, s.ch, null, true);
    }

    SelectSocket(Selector selector, SocketChannel ch, IoReady ready, boolean connected) {
        super(selector, ch, ready);
        this.ch = ch;
        this.connected = connected;
    }

    @Override
    int opsFor(boolean read, boolean write) {
        wantRead = read;
        wantWrite = write;
        int ops = read ? SelectionKey.OP_READ : 0;
        if (write) {
            ops |= connected ? SelectionKey.OP_WRITE : SelectionKey.OP_CONNECT;
        }
        return ops;
    }

    /** Remembers where this socket connects to, for the failure of the connect to name. */
    SelectSocket connectingTo(SocketAddress address) {
        this.target = address;
        return this;
    }

    @Override
    public void attach(IoReady r) {
        this.ready = r;
    }

    @Override
    public boolean finishConnect() throws IOException {
        if (connected) {
            return true;
        }
        try {
            if (!ch.finishConnect()) {
                return false;
            }
        } catch (IOException e) {
            throw SocketErrors.translate(Call.CONNECT, e, target);
        }
        connected = true;
        reapply(wantRead, wantWrite); // OP_CONNECT must not stay: it would report ready forever
        return true;
    }

    void connectedAtOnce() {
        connected = true;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        try {
            return ch.read(dst);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        try {
            return ch.write(src);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null); // the JDK's "Broken pipe" is a plain IOException
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        try {
            return ch.write(srcs, offset, length);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
    }

    @Override
    public IoFileSender fileSender(FileChannel file) {
        return this;
    }

    @Override
    public long sendFile(FileChannel file, long position, long count) throws IOException {
        long n;
        try {
            n = file.transferTo(position, count, ch);
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
        // transferTo answers 0 both for a full socket and at the end of the file: only the size tells
        return n == 0 && position >= file.size() ? -1 : n;
    }

    @Override
    public void shutdownOutput() throws IOException {
        try {
            ch.shutdownOutput();
        } catch (IOException e) {
            throw SocketErrors.translate(Call.IO, e, null);
        }
    }

    @Override
    public void abort() {
        if (!ch.isOpen()) {
            return;
        }
        try {
            ch.setOption(StandardSocketOptions.SO_LINGER, 0);
        } catch (IOException e) {
            // still close it; the peer sees a FIN instead of a reset
        }
        close();
    }

    @Override
    public SocketAddress localAddress() {
        if (local == null) {
            try {
                local = ch.getLocalAddress();
            } catch (IOException e) {
                return null;
            }
        }
        return local;
    }

    @Override
    public SocketAddress remoteAddress() {
        if (remote == null) {
            try {
                remote = ch.getRemoteAddress();
            } catch (IOException e) {
                return null;
            }
        }
        return remote;
    }

    @Override
    public UnixIo.IoPeerCredentials peerCredentials() {
        throw new UnsupportedOperationException("cannot read a peer's process id and numeric user and group ids: the"
                + " JDK's SO_PEERCRED (jdk.net.ExtendedSocketOptions) gives user and group names only");
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        if (!ch.supportedOptions().contains(option)) {
            throw new UnsupportedOperationException("backend select does not support " + option.name());
        }
        ch.setOption(option, value);
    }

    @Override
    public String toString() {
        return "SelectSocket[" + localAddress() + " -> " + remoteAddress() + "]";
    }
}
