package dev.loop.iouring;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import io.netty.channel.unix.NativeInetAddress;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * A listening TCP socket on io_uring. Not thread-safe: loop thread only.
 *
 * <p>Accepting is not on the per-message path, so it stays simple: a poll operation reports that
 * connections wait, and {@link #accept()} takes them with {@code accept4}, which also hands over
 * the peer's address without a {@code getpeername} per connection.
 */
final class IoUringServerSocket extends IoUringChannel implements IoServerSocket {
    /** Netty's accepted-address layout: a length byte, up to 16 address bytes, scope id, port. */
    private static final int ACCEPTED_ADDRESS_SIZE = 26;

    private final InetSocketAddress local;
    private final byte[] acceptedAddress = new byte[ACCEPTED_ADDRESS_SIZE];
    private boolean readInterest;
    private long pollId;
    private boolean pending;
    private boolean cancelled;

    IoUringServerSocket(IoUringNetIo net, Socket socket, IoReady ready) {
        super(net, socket, ready);
        this.local = socket.localAddress();
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
            pollId = submit(Ops.poll(fd, Ops.POLLIN));
        }
    }

    @Override
    void completed(long op, int res, int flags) {
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
            accepted = socket.accept(acceptedAddress); // accept4(SOCK_NONBLOCK | SOCK_CLOEXEC)
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
        try {
            InetSocketAddress remote = NativeInetAddress.address(acceptedAddress, 1, acceptedAddress[0]);
            return new IoUringSocket(net, s, null, true, remote);
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    @Override
    void cancelInFlight() {
        if (pollId != 0 && !cancelled) {
            cancelled = true;
            submit(Ops.cancel(pollId));
        }
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public String toString() {
        return "IoUringServerSocket[" + local + "]";
    }
}
