package dev.loop.iouring;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoSocket;
import io.netty.channel.unix.Buffer;
import io.netty.channel.unix.Errors;
import io.netty.channel.unix.Socket;
import io.netty.channel.uring.IoUringIoOps;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;

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
 * that reports bytes it takes a buffer, receives once directly (one system call per idle-to-busy
 * change, not per message) and from then on keeps a receive in flight. A socket that received
 * nothing for a whole sweep interval of the driver ({@link IoUringNetIo#sweepIdle}) cancels its
 * receive, gives the buffer back to the loop's spares and polls again.
 *
 * <p><b>Writes.</b> {@link #write} copies into the socket's send buffer and says how much it took,
 * as a kernel's send buffer would; the driver queues one send per socket per iteration for
 * everything written, just before its {@code io_uring_enter}. The send buffer is held only while
 * it holds bytes. {@link #close()} lets taken bytes leave before the descriptor closes (a kernel
 * send buffer would too); {@link #abort()} drops them and resets.
 */
final class IoUringSocket extends IoUringChannel implements IoSocket {
    static final int MIN_RECV = 2 * 1024;
    /** A socket idle for this many sweeps (one to two intervals) gives its receive buffer back. */
    static final int IDLE_SWEEPS = 2;
    static final int MAX_RECV = 64 * 1024;
    static final int SEND_BUFFER = 64 * 1024;

    private boolean connected;
    private long connectPoll;
    private boolean wantConnectPoll;
    private boolean aborted;
    private boolean recvCancelled;
    private boolean sendCancelled;
    private boolean pollCancelled;
    private boolean readInterest;
    private boolean writeInterest;
    /** Unix domain: both names are known to the opener, and Netty reads a socket's name only as IP. */
    private final boolean unix;
    private SocketAddress local;
    private final SocketAddress remote;

    // Receive side: [readPos, readEnd) of recv holds bytes not yet handed out.
    private ByteBuffer recv;
    private long recvAddress;
    private IoUringIoOps recvOps;
    private IoUringIoOps recvPollFirstOps;
    private boolean socketHasMore;
    private long recvId;
    /** Reading without a buffer: a poll waits for bytes (see the class comment). */
    private boolean pollMode = true;
    private long readPollId;
    private boolean readPollCancelled;
    /** The receive in flight is being cancelled so that the buffer can go back. */
    private boolean dropping;
    private int lastReceiveSweep;
    private int readPos;
    private int readEnd;
    private int smallReceives;
    private boolean eof;
    private IOException failure;

    // Send side: [0, sendEnd) of send is taken and not yet sent; [0, sending) is in flight.
    private ByteBuffer send;
    private long sendAddress;
    private long sendId;
    private int sending;
    private int sendEnd;
    private boolean shutdownPending;
    private boolean outputShut;

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

    /** The same descriptor and names under a new handle of another loop (see {@code NetIo.adopt}). */
    IoUringSocket adoptedBy(IoUringNetIo other) {
        return new IoUringSocket(other, socket, null, true, local, remote, unix);
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
        if (!socket.finishConnect()) {
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
            if (readPos < readEnd || eof || failure != null) {
                reportAgain();
            } else {
                armReceive();
            }
        }
        if (write && connected && sendEnd < SEND_BUFFER) {
            reportAgain();
        }
    }

    @Override
    int levelReady() {
        int ops = 0;
        if (readInterest && (readPos < readEnd || eof || failure != null)) {
            ops |= IoReady.READ;
        }
        if (writeInterest && connected && (sendEnd < SEND_BUFFER || failure != null)) {
            ops |= IoReady.WRITE;
        }
        return ops;
    }

    private boolean wantsReceive() {
        return recvId == 0 && readPollId == 0 && readInterest && connected && readPos == readEnd && !eof && failure == null;
    }

    private void armReceive() {
        if (wantsReceive() && !isClosing()) {
            requestSubmit();
        }
    }

    @Override
    void submitRequested() {
        if (wantConnectPoll && connectPoll == 0) {
            wantConnectPoll = false;
            connectPoll = submit(Ops.poll(fd, Ops.POLLOUT, data(Ops.POLL)));
        }
        if (wantsReceive()) {
            if (pollMode) {
                readPollId = submit(Ops.poll(fd, Ops.POLLIN, data(Ops.READ_POLL)));
            } else {
                if (recv == null) {
                    useBuffer(net.takeReceiveBuffer());
                }
                recvId = submit(socketHasMore ? recvOps : recvPollFirstOps);
            }
        }
        if (dropping && recvId != 0 && !recvCancelled) {
            recvCancelled = true;
            submit(Ops.cancel(recvId, data(Ops.CANCEL)));
        }
        flush();
    }

    private void resize(int size) {
        if (recv != null) {
            net.giveBackReceiveBuffer(recv);
        }
        useBuffer(size == MIN_RECV ? net.takeReceiveBuffer() : ByteBuffer.allocateDirect(size));
    }

    private void useBuffer(ByteBuffer b) {
        recv = b;
        recvAddress = Buffer.memoryAddress(b);
        recvOps = Ops.recv(fd, recvAddress, b.capacity(), false, data(Ops.RECV));
        recvPollFirstOps = Ops.recv(fd, recvAddress, b.capacity(), true, data(Ops.RECV));
    }

    private void releaseReceiveBuffer() {
        if (recv != null) {
            net.giveBackReceiveBuffer(recv);
            recv = null;
            recvAddress = 0;
            recvOps = null;
            recvPollFirstOps = null;
        }
    }

    /**
     * The driver's periodic sweep: a socket that received nothing since {@link #IDLE_SWEEPS}
     * sweeps ago and holds no unread bytes goes back to polling, giving its buffer back (after
     * cancelling the receive in flight, if any). Returns whether it started to.
     */
    @Override
    boolean sweepIdle(int sweep) {
        if (pollMode || dropping || isClosing() || readPos < readEnd || sweep - lastReceiveSweep < IDLE_SWEEPS) {
            return false;
        }
        if (recvId != 0) {
            dropping = true; // the buffer goes back when the cancelled receive completes
            requestSubmit();
        } else {
            toPollMode();
        }
        return true;
    }

    private void toPollMode() {
        dropping = false;
        releaseReceiveBuffer();
        resizeAfterRead = 0;
        smallReceives = 0;
        pollMode = true;
        armReceive();
    }

    /** Whether the socket holds a receive buffer now (for tests). */
    boolean holdsReceiveBuffer() {
        return recv != null;
    }

    @Override
    void completed(int op, int res, int flags) {
        if (op == Ops.READ_POLL) {
            readPolled(res);
        } else if (op == Ops.RECV) {
            // The kernel says whether bytes are still queued: if so, the next receive tries at
            // once; if not, it arms its poll first and skips an attempt that would find nothing.
            socketHasMore = (flags & Ops.IORING_CQE_F_SOCK_NONEMPTY) != 0;
            received(res);
        } else if (op == Ops.SEND) {
            sent(res);
        } else if (op == Ops.POLL) {
            connectPoll = 0;
            pollCancelled = false;
            if (res != -Ops.ECANCELED && !isClosing()) {
                report(IoReady.WRITE); // the connect's outcome is known: finishConnect() says which
            }
        }
    }

    private void received(int res) {
        recvId = 0;
        recvCancelled = false;
        if (isClosing()) {
            return;
        }
        if (dropping) {
            if (res == -Ops.ECANCELED) {
                toPollMode();
                return;
            }
            dropping = false; // bytes (or the end) came first: the socket is not idle after all
        } else if (res == -Ops.ECANCELED) {
            return;
        }
        lastReceiveSweep = net.sweeps();
        if (res > 0) {
            readPos = 0;
            readEnd = res;
            adapt(res);
        } else if (res == 0) {
            eof = true;
        } else {
            fail("recv", res);
        }
        if (readInterest) {
            report(IoReady.READ);
        }
    }

    /**
     * The buffer-less poll reported bytes (or the end, or an error): take a buffer and receive
     * once directly, then keep receives in flight as a busy socket does.
     */
    private void readPolled(int res) {
        readPollId = 0;
        readPollCancelled = false;
        if (isClosing() || res == -Ops.ECANCELED) {
            return;
        }
        if (res < 0) { // the kernel cannot poll this socket: say so rather than poll it again
            fail("poll", res);
            if (readInterest) {
                report(IoReady.READ);
            }
            return;
        }
        pollMode = false;
        lastReceiveSweep = net.sweeps();
        useBuffer(net.takeReceiveBuffer());
        int n;
        try {
            n = socket.recvAddress(recvAddress, 0, recv.capacity());
        } catch (IOException e) {
            if (failure == null) {
                failure = e;
            }
            n = 0;
        }
        if (n > 0) {
            readPos = 0;
            readEnd = n;
            socketHasMore = n == recv.capacity();
            adapt(n);
        } else if (n < 0) {
            eof = true;
        } else if (failure == null) {
            toPollMode(); // woken for nothing: poll again
            return;
        }
        if (readInterest) {
            report(IoReady.READ);
        }
    }

    /** Grows on a full receive; shrinks after several that used under a quarter of the buffer. */
    private void adapt(int received) {
        int cap = recv.capacity();
        if (received == cap && cap < MAX_RECV) {
            resizeAfterRead = cap * 2;
            smallReceives = 0;
        } else if (received < cap / 4 && cap > MIN_RECV) {
            if (++smallReceives >= 4) {
                resizeAfterRead = cap / 2;
                smallReceives = 0;
            }
        } else {
            smallReceives = 0;
        }
    }

    /** The size the receive buffer takes once its bytes are handed out; 0 to keep it. */
    private int resizeAfterRead;

    private void fail(String call, int res) {
        if (failure == null) {
            failure = res == Errors.ERRNO_ECONNRESET_NEGATIVE
                    ? Errors.newConnectionResetException(call, res)
                    : Errors.newIOException(call, res);
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        if (readPos < readEnd) {
            int n = Math.min(dst.remaining(), readEnd - readPos);
            recv.limit(readPos + n).position(readPos);
            dst.put(recv);
            readPos += n;
            if (readPos < readEnd) {
                reportAgain(); // the reader may stop after a short read: level-triggered
            } else {
                readPos = readEnd = 0;
                if (resizeAfterRead != 0) {
                    resize(resizeAfterRead);
                    resizeAfterRead = 0;
                }
                armReceive();
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
        checkWritable();
        int n = Math.min(src.remaining(), SEND_BUFFER - sendEnd);
        if (n > 0) {
            takeSendBuffer();
            int limit = src.limit();
            src.limit(src.position() + n);
            send.limit(SEND_BUFFER).position(sendEnd);
            send.put(src);
            src.limit(limit);
            sendEnd += n;
            if (sendId == 0) {
                requestSubmit();
            }
        }
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer b = srcs[i];
            if (!b.hasRemaining()) {
                continue;
            }
            int n = write(b);
            total += n;
            if (b.hasRemaining()) {
                break;
            }
        }
        return total;
    }

    private void checkWritable() throws IOException {
        if (failure != null) {
            throw failure;
        }
        if (isClosing()) {
            throw new ClosedChannelException();
        }
        if (outputShut || shutdownPending) {
            throw new IOException("output of " + this + " is shut down");
        }
    }

    private void takeSendBuffer() {
        if (send == null) {
            send = net.takeSendBuffer();
            sendAddress = Buffer.memoryAddress(send);
        }
    }

    /** Everything taken since the last send leaves in one send, once the last one completed. */
    private void flush() {
        if (sendId != 0 || sendEnd == 0 || failure != null) {
            return;
        }
        sending = sendEnd;
        sendId = submit(Ops.send(fd, sendAddress, sending, data(Ops.SEND)));
    }

    private void sent(int res) {
        sendId = 0;
        sendCancelled = false;
        if (res < 0) {
            if (res != -Ops.ECANCELED) {
                fail("send", res);
                report(IoReady.ERROR | (readInterest ? IoReady.READ : 0) | (writeInterest ? IoReady.WRITE : 0));
            }
            sending = sendEnd = 0;
            giveBackSendBuffer();
            return;
        }
        // Keep what the kernel did not take (a short send) and what was written meanwhile.
        int left = sendEnd - res;
        if (left > 0) {
            send.limit(sendEnd).position(res);
            send.compact();
        }
        sendEnd = left;
        sending = 0;
        if (sendEnd > 0) {
            requestSubmit();
        } else {
            giveBackSendBuffer();
            if (shutdownPending) {
                shutdownNow();
            }
            if (isClosing()) {
                return; // the close waited for this send; the channel releases itself now
            }
        }
        if (writeInterest && !isClosing()) {
            report(IoReady.WRITE);
        }
    }

    private void giveBackSendBuffer() {
        if (send != null) {
            net.giveBackSendBuffer(send);
            send = null;
            sendAddress = 0;
        }
    }

    @Override
    public void shutdownOutput() throws IOException {
        checkWritable();
        if (sendEnd == 0 && sendId == 0) {
            shutdownNow();
        } else {
            shutdownPending = true;
        }
    }

    private void shutdownNow() {
        shutdownPending = false;
        outputShut = true;
        try {
            socket.shutdown(false, true);
        } catch (IOException e) {
            fail("shutdown", Errors.ERRNO_ENOTCONN_NEGATIVE);
        }
    }

    @Override
    void cancelInFlight() {
        if (readPollId != 0 && !readPollCancelled) {
            readPollCancelled = true;
            submit(Ops.cancel(readPollId, data(Ops.CANCEL)));
        }
        if (recvId != 0 && !recvCancelled) {
            recvCancelled = true;
            submit(Ops.cancel(recvId, data(Ops.CANCEL)));
        }
        if (connectPoll != 0 && !pollCancelled) {
            pollCancelled = true;
            submit(Ops.cancel(connectPoll, data(Ops.CANCEL)));
        }
        if (aborted || shuttingDown()) {
            if (sendId != 0 && !sendCancelled) {
                sendCancelled = true;
                submit(Ops.cancel(sendId, data(Ops.CANCEL)));
            }
        } else if (connected) {
            // Bytes already taken still leave, as they would from a kernel's send buffer.
            flush();
        }
    }

    @Override
    public void abort() {
        try {
            socket.setSoLinger(0);
        } catch (IOException ignored) {
            // Already closed or never connected: an orderly close is all there is.
        }
        aborted = true;
        sendEnd = 0;
        closeWhenIdle();
    }

    @Override
    void freeBuffers() {
        giveBackSendBuffer();
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
    public <T> void setOption(SocketOption<T> option, T value) throws IOException {
        IoUringNetIo.apply(socket, option, value);
    }

    @Override
    public String toString() {
        return "IoUringSocket[fd " + fd + ", " + remote + "]";
    }
}
