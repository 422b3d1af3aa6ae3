package dev.loop.iouring;

import dev.loop.linux.NativeAccept;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.SocketAddress;

/**
 * A listening TCP socket on io_uring. Not thread-safe: loop thread only.
 *
 * <p>Accepting is not on the per-message path, so it stays simple: a poll operation reports that
 * connections wait, and {@link #accept()} takes them with {@code accept4}, which also hands over
 * the peer's address without a {@code getpeername} per connection.
 */
final class IoUringServerSocket extends IoUringChannel implements IoServerSocket {
    private final SocketAddress local;
    private final boolean unix;
    private final NativeAccept acceptor = new NativeAccept();
    private boolean readInterest;
    private long pollId;
    private boolean pending;
    private boolean cancelled;

    /** A listening TCP socket. */
    IoUringServerSocket(IoUringNetIo net, Socket socket, IoReady ready) {
        this(net, socket, ready, socket.localAddress(), false);
    }

    private IoUringServerSocket(IoUringNetIo net, Socket socket, IoReady ready, SocketAddress local, boolean unix) {
        super(net, socket, ready);
        this.local = local;
        this.unix = unix;
    }

    /**
     * A listening Unix domain socket named {@code path} (null for an abstract name, which the
     * layer above names itself). Its connections' peers are unnamed, as clients' usually are.
     */
    static IoUringServerSocket unix(IoUringNetIo net, Socket socket, IoReady ready, SocketAddress path) {
        return new IoUringServerSocket(net, socket, ready, path, true);
    }

    @Override
    public void interest(boolean read, boolean write) {
        readInterest = read;
        if (read && !isClosing()) {
            if (pending) {
                reportAgain();
            } else {
                arm();
            }
        }
    }

    private void arm() {
        if (pollId == 0 && readInterest && !isClosing()) {
            requestSubmit();
        }
    }

    @Override
    void submitRequested() {
        if (pollId == 0 && readInterest && !pending) {
            pollId = submit(Ops.poll(fd, Ops.POLLIN, data(Ops.POLL)));
        }
    }

    @Override
    void completed(int op, int res, int flags) {
        pollId = 0;
        if (res == -Ops.ECANCELED || isClosing()) {
            return;
        }
        pending = true; // readable, or an error that accept() will report
        if (readInterest) {
            report(IoReady.READ);
        }
    }

    @Override
    int levelReady() {
        return readInterest && pending ? IoReady.READ : 0;
    }

    @Override
    public IoSocket accept() throws IOException {
        int accepted;
        try {
            accepted = acceptor.accept(socket);
        } catch (IOException e) {
            pending = false;
            arm();
            throw e;
        }
        if (accepted < 0) {
            pending = false;
            arm();
            return null;
        }
        reportAgain(); // more may wait: the acceptor may stop after a few
        Socket s = new Socket(accepted);
        if (unix) {
            // a Unix peer is unnamed, and the kernel wrote a sockaddr_un that peer() would misread
            return IoUringSocket.unix(net, s, null, true, local, IoUringUnixIo.UNNAMED);
        }
        try {
            return new IoUringSocket(net, s, null, true, acceptor.peer());
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    void cancelInFlight() {
        if (pollId != 0 && !cancelled) {
            cancelled = true;
            submit(Ops.cancel(pollId, data(Ops.CANCEL)));
        }
    }

    /**
     * Stops listening at once: the poll in flight holds the socket until its cancel completes,
     * one poll later, and a connect meanwhile would still be accepted by the kernel. Shutting
     * the listener's input makes the kernel refuse new connections now (TCP resets them, a Unix
     * domain connect fails with {@code ECONNREFUSED}), as a readiness backend's close does.
     */
    @Override
    public void close() {
        if (!isClosing()) {
            try {
                socket.shutdown(true, false);
            } catch (IOException ignored) {
                // not listening any more anyway: the close below is all there is
            }
        }
        closeWhenIdle();
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public String toString() {
        return "IoUringServerSocket[" + local + "]";
    }
}
