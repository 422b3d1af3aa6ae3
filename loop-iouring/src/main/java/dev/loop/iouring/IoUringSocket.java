package dev.loop.iouring;

import dev.loop.linux.NativeErrors;
import dev.loop.linux.NativeStreams;
import dev.loop.spi.IoFileSender;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import dev.loop.spi.SocketErrors.Call;
import dev.loop.spi.UnixIo;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * A connected (or connecting) TCP socket on io_uring, completion-based under the readiness SPI.
 * Not thread-safe: loop thread only.
 *
 * <p><b>Reads.</b> While reading is asked for, one receive is in flight into the socket's own
 * buffer; its completion is reported as {@link IoReady#READ}, and {@link #read} hands out what it
 * holds, re-arming the receive once it is empty. The buffer adapts like a receive allocator: it
 * starts small, doubles when a receive fills it and halves after receives that leave most of it
 * unused.
 *
 * <p><b>Idle sockets hold no buffer.</b> A receive in flight pins its buffer for as long as the
 * peer says nothing, which for thousands of idle connections is most of their memory (Netty's
 * provided-buffer rings, which would let the kernel pick a buffer only when bytes arrive, are
 * private to its channels). So a socket starts reading with a buffer-less poll operation; when
 * that reports bytes it takes a buffer and queues a receive with the iteration's other
 * submissions (a second completion per idle-to-busy change, no system call). Woken after a quiet
 * spell ({@link #QUIET_NANOS}), it gives the buffer back as soon as those bytes are read and
 * polls again; woken sooner, or told that more bytes wait, it keeps a receive in flight from
 * then on. A socket that received
 * nothing for a whole sweep interval of the driver ({@link IoUringNetIo#sweepIdle}) cancels its
 * receive, gives the buffer back to the loop's spares and polls again. What only a receiving
 * socket needs is one object ({@link Inbound}), not fields of every socket.
 *
 * <p><b>Writes.</b> {@link #write} copies into the socket's send buffer and says how much it took,
 * as a kernel's send buffer would; the driver queues one send per socket per iteration for
 * everything written, just before its {@code io_uring_enter}. The send buffer ({@link Outbound})
 * is held only while it holds bytes; sending, files and the output shutdown are {@link Sending}'s.
 * {@link #close()} lets taken bytes leave before the descriptor closes (a kernel send buffer would
 * too); {@link #abort()} drops them and resets.
 */
final class IoUringSocket extends IoUringChannel implements IoSocket {
    static final int SEND_BUFFER = Outbound.SIZE;
    /** A socket idle for this many sweeps (one to two intervals) gives its receive buffer back. */
    static final int IDLE_SWEEPS = 2;
    /**
     * A socket whose bytes arrive this long or longer after its last wake from polling is quiet:
     * the buffer it took for them goes back as soon as they are handed out and it polls again,
     * rather than keeping a receive in flight (and the buffer pinned under it) until a sweep finds
     * it idle. A busy socket (its next bytes come sooner, or more wait) keeps its buffer and adds
     * nothing per message; a quiet one pays a poll and a receive through the ring per wake.
     * Measured with 15,000 connections that each echoed a kilobyte: the echo server held 2.0-2.6
     * KiB per connection right after the echo while the buffers waited for the sweep, against
     * epoll's 0.24-0.37.
     */
    static final long QUIET_NANOS = 50_000_000L;

    private boolean connected;
    private boolean wantConnectPoll;
    private boolean aborted;
    boolean readInterest; // read by Sending, written here only
    boolean writeInterest;
    /** Unix domain: both names are known to the opener, and Netty reads a socket's name only as IP. */
    private final boolean unix;
    private SocketAddress local;
    private final SocketAddress remote;

    /**
     * The poll in flight, or 0: for the outcome of a connect while connecting ({@link Ops#POLL}),
     * for bytes while reading without a buffer afterwards ({@link Ops#READ_POLL}); never both.
     */
    private long pollId;
    private boolean pollCancelled;
    /** Receiving: the buffer and its receive; null while reading without a buffer (polling). */
    private Inbound in;
    /** {@code System.nanoTime()} of the last wake from polling; 0 before the first. */
    private long lastWake;
    private boolean eof;
    private IOException failure;

    /** Sending: the send buffer, files and the output shutdown. */
    private final Sending send = new Sending(this);

    /** A TCP socket; its local address is asked of the kernel when first wanted. */
    IoUringSocket(IoUringNetIo net, Socket socket, IoReady ready, boolean connected, SocketAddress remote) {
        this(net, socket, ready, connected, null, remote, false);
    }

    private IoUringSocket(IoUringNetIo net, Socket socket, IoReady ready, boolean connected, SocketAddress local,
                          SocketAddress remote, boolean unix) {
        super(net, socket, ready);
        this.connected = connected;
        this.local = local;
        this.remote = remote;
        this.unix = unix;
    }

    /** A Unix domain socket with the names its opener knows. */
    static IoUringSocket unix(IoUringNetIo net, Socket socket, IoReady ready, boolean connected, SocketAddress local,
                              SocketAddress remote) {
        return new IoUringSocket(net, socket, ready, connected, local, remote, true);
    }

    /**
     * {@code accepted}, which another loop of the group accepted, with the same descriptor and names
     * under a new handle of {@code net}'s loop (see {@code NetIo.adopt}). The accepting loop never
     * registered it (that waits for the first operation), so the descriptor simply changes hands;
     * the old handle is dropped. Only this class can tell its own sockets from another backend's:
     * the SPI cannot name either type.
     *
     * @throws IllegalArgumentException if {@code accepted} is another backend's
     */
    static IoUringSocket adopted(IoSocket accepted, IoUringNetIo net) {
        if (!(accepted instanceof IoUringSocket s)) {
            throw new IllegalArgumentException("not an io_uring socket: " + accepted);
        }
        return new IoUringSocket(net, s.socket, null, true, s.local, s.remote, s.unix);
    }

    /** Starts watching for the outcome of a connect in progress. */
    void awaitConnect() {
        wantConnectPoll = true;
        requestSubmit();
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
        if (!NativeStreams.finishConnect(socket, remote)) {
            awaitConnect();
            return false;
        }
        connected = true;
        armReceive();
        return true;
    }

    @Override
    public void interest(boolean read, boolean write) {
        readInterest = read;
        writeInterest = write;
        if (isClosing()) {
            return;
        }
        if (read) {
            if (unread() > 0 || eof || failure != null) {
                reportAgain();
            } else {
                armReceive();
            }
        }
        if (write && connected && send.writable()) {
            reportAgain();
        }
    }

    @Override
    int levelReady() {
        int ops = 0;
        if (readInterest && (unread() > 0 || eof || failure != null)) {
            ops |= IoReady.READ;
        }
        if (writeInterest && connected && (send.writable() || failure != null)) {
            ops |= IoReady.WRITE;
        }
        return ops;
    }

    private int unread() {
        return in == null ? 0 : in.unread();
    }

    private boolean wantsReceive() {
        return pollId == 0 && (in == null || in.id == 0 && in.unread() == 0) && readInterest && connected
                && !eof && failure == null;
    }

    private void armReceive() {
        if (wantsReceive() && !isClosing()) {
            requestSubmit();
        }
    }

    @Override
    void submitRequested() {
        if (wantConnectPoll && pollId == 0) {
            wantConnectPoll = false;
            pollId = submit(Ops.poll(fd, Ops.POLLOUT, data(Ops.POLL)));
        }
        send.submitWritePoll();
        if (wantsReceive()) {
            if (in == null) {
                pollId = submit(Ops.poll(fd, Ops.POLLIN, data(Ops.READ_POLL)));
            } else {
                in.id = submit(in.receiveOps(fd, data(Ops.RECV)));
            }
        }
        if (in != null && in.dropping && in.id != 0 && !in.cancelled) {
            in.cancelled = true;
            submit(Ops.cancel(in.id, data(Ops.CANCEL)));
        }
        send.flush();
    }

    /** Starts receiving into {@code next}, keeping what the last buffer had learned. */
    private void receiveInto(Inbound next) {
        Inbound last = in;
        in = next;
        if (last != null) { // no receive uses it: a resize waits for its bytes to be handed out
            next.socketHasMore = last.socketHasMore;
            next.lastReceiveSweep = last.lastReceiveSweep;
            net.buffers().giveBackReceive(last);
        }
    }

    /** Gives the receive buffer back; only once no receive is in flight into it. */
    private void releaseReceiveBuffer() {
        if (in != null) {
            net.buffers().giveBackReceive(in);
            in = null;
        }
    }

    /**
     * The driver's periodic sweep: a socket that received nothing since {@link #IDLE_SWEEPS}
     * sweeps ago and holds no unread bytes goes back to polling, giving its buffer back (after
     * cancelling the receive in flight, if any). Returns whether it started to.
     */
    @Override
    boolean sweepIdle(int sweep) {
        if (in == null || in.dropping || isClosing() || in.unread() > 0 || sweep - in.lastReceiveSweep < IDLE_SWEEPS) {
            return false;
        }
        if (in.id != 0) {
            in.dropping = true; // the buffer goes back when the cancelled receive completes
            requestSubmit();
        } else {
            toPollMode();
        }
        return true;
    }

    private void toPollMode() {
        releaseReceiveBuffer();
        armReceive();
    }

    /** Whether the socket holds a receive buffer now (for tests). */
    boolean holdsReceiveBuffer() {
        return in != null;
    }

    @Override
    void completed(int op, int res, int flags) {
        if (op == Ops.RECV) {
            // The kernel says whether bytes are still queued: if so, the next receive tries at
            // once; if not, it arms its poll first and skips an attempt that would find nothing.
            received(res, (flags & Ops.IORING_CQE_F_SOCK_NONEMPTY) != 0);
        } else if (op == Ops.SEND) {
            send.sent(res);
        } else if (op == Ops.READ_POLL) {
            pollId = 0;
            pollCancelled = false;
            readPolled(res);
        } else if (op == Ops.WRITE_POLL) {
            send.writePolled(res);
        } else if (op == Ops.POLL) {
            pollId = 0;
            pollCancelled = false;
            if (res != -Ops.ECANCELED && !isClosing()) {
                report(IoReady.WRITE); // the connect's outcome is known: finishConnect() says which
            }
        }
    }

    private void received(int res, boolean socketHasMore) {
        Inbound b = in;
        b.id = 0;
        b.cancelled = false;
        b.socketHasMore = socketHasMore;
        if (isClosing()) {
            return;
        }
        if (b.dropping) {
            if (res == -Ops.ECANCELED) {
                toPollMode();
                return;
            }
            b.dropping = false; // bytes (or the end) came first: the socket is not idle after all
        } else if (res == -Ops.ECANCELED) {
            return;
        }
        b.lastReceiveSweep = net.sweeps();
        // The receive a quiet wake queued keeps its mark: its bytes, once read, let the buffer go.
        b.quiet &= b.wakeReceive;
        b.wakeReceive = false;
        if (res > 0) {
            b.pos = 0;
            b.end = res;
            b.adapt(res);
        } else if (res == 0) {
            eof = true;
        } else {
            fail(res);
        }
        if (readInterest) {
            report(IoReady.READ);
        }
    }

    /**
     * The buffer-less poll reported bytes (or the end, or an error): take a buffer and queue one
     * receive that tries at once, then keep receives in flight as a busy socket does. The receive
     * goes out with the iteration's other submissions rather than as a {@code recv} of its own: a
     * socket that wakes from a quiet spell on every message (under load, with a round trip longer
     * than {@link #QUIET_NANOS}) then costs no system call per message, only a second completion.
     */
    private void readPolled(int res) {
        if (isClosing() || res == -Ops.ECANCELED) {
            return;
        }
        if (res < 0) { // the kernel cannot poll this socket: say so rather than poll it again
            fail(res);
            if (readInterest) {
                report(IoReady.READ);
            }
            return;
        }
        receiveInto(net.buffers().takeReceive(Buffers.MIN));
        Inbound b = in;
        b.lastReceiveSweep = net.sweeps();
        // One clock read per wake: not per message of a busy socket.
        long now = System.nanoTime();
        b.quiet = lastWake == 0 || now - lastWake >= net.quietNanos;
        b.wakeReceive = true;
        b.socketHasMore = true; // the poll says bytes wait: the receive need not arm a poll first
        lastWake = now;
        armReceive();
    }

    /** Keeps the first failure, a completion's negative result, for the next read or write to throw. */
    void fail(int res) {
        if (failure == null) {
            failure = NativeErrors.ofResult(Call.IO, res, null);
        }
    }

    /** Keeps {@code e} unless a failure came first. */
    void failWith(IOException e) {
        if (failure == null) {
            failure = e;
        }
    }

    /** The first failure, which the next read or write throws; null while there is none. */
    IOException failure() {
        return failure;
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        Inbound b = in;
        if (b != null && b.pos < b.end) {
            int n = Math.min(dst.remaining(), b.end - b.pos);
            ByteBuffer buffer = b.buffer;
            buffer.limit(b.pos + n).position(b.pos);
            dst.put(buffer);
            b.pos += n;
            if (b.pos < b.end) {
                reportAgain(); // the reader may stop after a short read: level-triggered
            } else {
                b.pos = b.end = 0;
                if (b.quiet && !b.socketHasMore && b.id == 0) {
                    toPollMode(); // drained after a quiet spell: poll again without the buffer
                } else {
                    if (b.resizeAfterRead != 0) {
                        receiveInto(net.buffers().takeReceive(b.resizeAfterRead));
                    }
                    armReceive();
                }
            }
            return n;
        }
        if (failure != null) {
            throw failure;
        }
        if (eof) {
            return -1;
        }
        if (isClosing()) {
            throw new ClosedChannelException();
        }
        armReceive();
        return 0;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return send.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        return send.write(srcs, offset, length);
    }

    /** {@code sendfile(2)} on this socket's descriptor when the JDK and Netty allow it ({@link SendFile}). */
    @Override
    public IoFileSender fileSender(FileChannel file) {
        int fileFd = SendFile.descriptorOf(file);
        return fileFd < 0 ? null : (f, position, count) -> send.sendFile(fileFd, f, position, count);
    }

    @Override
    public void shutdownOutput() throws IOException {
        send.shutdownOutput();
    }

    @Override
    void cancelInFlight() {
        send.cancelWritePoll();
        if (pollId != 0 && !pollCancelled) {
            pollCancelled = true;
            submit(Ops.cancel(pollId, data(Ops.CANCEL)));
        }
        if (in != null && in.id != 0 && !in.cancelled) {
            in.cancelled = true;
            submit(Ops.cancel(in.id, data(Ops.CANCEL)));
        }
        if (aborted || shuttingDown()) {
            send.cancelSend();
        } else if (connected) {
            // Bytes already taken still leave, as they would from a kernel's send buffer.
            send.flush();
        }
    }

    @Override
    public void abort() {
        NativeStreams.lingerZero(socket);
        aborted = true;
        send.dropTaken();
        closeWhenIdle();
    }

    @Override
    void freeBuffers() {
        send.giveBackSendBuffer();
        releaseReceiveBuffer();
    }

    @Override
    public SocketAddress localAddress() {
        if (local == null && !unix && isOpen()) {
            local = socket.localAddress();
        }
        return local;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public UnixIo.IoPeerCredentials peerCredentials() throws IOException {
        return NativeStreams.peerCredentials(socket);
    }

    @Override
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        net.apply(socket, option, value);
    }

    @Override
    public String toString() {
        return "IoUringSocket[fd " + fd + ", " + remote + "]";
    }
}
