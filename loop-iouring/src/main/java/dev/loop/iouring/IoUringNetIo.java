package dev.loop.iouring;

import dev.loop.linux.CopyBuffer;
import dev.loop.linux.NativeDatagramSocket;
import dev.loop.linux.NativeNetIo;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.IoWatch;
import dev.loop.spi.Readiness;
import dev.loop.spi.UnixIo;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * TCP sockets on io_uring, and the per-iteration passes that make completion look like readiness
 * to the layers above (docs/adr/0011-completion-backends.md). The socket calls themselves (open,
 * bind, listen, connect, UDP, watched descriptors) are {@link NativeNetIo}'s, shared with epoll.
 * Not thread-safe: loop thread only, or any thread while the loop is not running.
 *
 * <p>Before each poll, every socket that asked for an operation during the iteration submits it (one send for all it was given)
 * ({@link #beforePoll()}); after it, sockets that still hold received bytes, or have room to
 * write, are reported again while those directions are asked for ({@link #afterPoll()}): the SPI's
 * readiness is level-triggered.
 */
final class IoUringNetIo extends NativeNetIo<Socket> {
    private static final System.Logger LOG = System.getLogger("dev.loop.iouring");
    /** The copy buffer heap datagrams go through: larger than any datagram. */
    private static final int COPY_BUFFER_SIZE = 64 * 1024;
    /** How often idle sockets are looked for ({@link #sweepIdle}). */
    private static final long SWEEP_INTERVAL_NANOS = 1_000_000_000L;

    private final IoUringDriver driver;
    private final ArrayDeque<IoUringChannel> submits = new ArrayDeque<>();
    /** Handles that {@linkplain IoUringChannel#waitsForCallbacks wait for the callbacks}: only the pre-poll pass submits them. */
    private final ArrayDeque<IoUringChannel> afterCallbacks = new ArrayDeque<>();
    private final ArrayDeque<IoUringChannel> level = new ArrayDeque<>();
    private final Buffers buffers = new Buffers();
    private int sweeps;
    /** The loop is closing ({@link #cancelAll()}): completions dispatched while the ring drains submit nothing. */
    private boolean closing;
    /** Tests call {@link #sweepIdle} themselves instead. */
    boolean automaticSweeps = true;
    /** {@link IoUringSocket#QUIET_NANOS}; tests set it to make every wake quiet, or only the first. */
    long quietNanos = IoUringSocket.QUIET_NANOS;
    private long nextSweep = System.nanoTime() + SWEEP_INTERVAL_NANOS;
    /** When the last {@link #beforePoll()} ran, for {@link #boundWait}. */
    private long polledAt = System.nanoTime();
    /** What waits for a descriptor that closed during this poll ({@code IoHandle.whenReleased}). */
    private final ArrayDeque<Runnable> releasedWaiters = new ArrayDeque<>();
    /**
     * The shared registrations ({@link Slab}); their occupied slots are the registered handles
     * not yet released, so no other list of them is kept.
     */
    private final List<Slab> slabs = new ArrayList<>();
    /** The slab new handles go to while it has room. */
    private Slab current;
    private final CopyBuffer copy = new CopyBuffer(COPY_BUFFER_SIZE);
    private UnixIo unix;

    IoUringNetIo(IoUringDriver driver) {
        super(IoUringBackendProvider.NAME);
        this.driver = driver;
    }

    /**
     * Gives {@code channel} a slot in a shared registration at its first operation; from then on
     * it is tracked until released.
     */
    void register(IoUringChannel channel) throws IOException {
        if (current == null || !current.hasRoom()) {
            current = null;
            for (Slab s : slabs) {
                if (s.hasRoom()) {
                    current = s;
                    break;
                }
            }
            if (current == null) {
                Slab s = new Slab();
                s.net = this;
                s.registration = driver.register(s);
                slabs.add(s);
                current = s;
            }
        }
        channel.slot = current.take(channel);
        channel.slab = current;
    }

    void released(IoUringChannel channel) {
        if (channel.slab != null) {
            channel.slab.free(channel.slot);
            channel.slab = null;
        }
    }

    /** A socket queued an operation for the next io_uring_enter: counted. */
    void submitted() {
        driver.counters.increment(IoUringDriver.SQE);
    }

    /** Where receivers' failures go: the driver's, see {@link Readiness#deliver}. */
    Readiness.Failures failures() {
        return driver.failures();
    }

    @Override
    public UnixIo unix() {
        if (unix == null) {
            unix = new IoUringUnixIo(this);
        }
        return unix;
    }

    /** The loop's copy buffer, for datagrams in heap buffers. */
    CopyBuffer copy() {
        return copy;
    }

    /** Every socket call enters here first: see {@link IoUringDriver#enterFromLoopThread()}. */
    @Override
    public void enter() {
        driver.enterFromLoopThread();
    }

    /**
     * A UDP socket of the family Netty prefers here ({@code AF_INET6}, which takes IPv4 addresses
     * as mapped ones, unless IPv4 is preferred): Netty's io_uring transport keeps its family-specific
     * socket factory to itself.
     */
    @Override
    protected Socket newDatagram(InetSocketAddress local) {
        return Socket.newSocketDgram();
    }

    @Override
    protected NativeDatagramSocket datagram(Socket socket, InetSocketAddress local, IoReady ready) {
        return new IoUringDatagram(this, socket, Socket.isIPv6Preferred(), ready);
    }

    @Override
    protected IoWatch newWatch(int fd, IoReady ready) {
        // One poll per descriptor (the base refuses a second watch): two would race for its readiness.
        return new IoUringWatch(this, fd, ready);
    }

    void queueSubmit(IoUringChannel channel) {
        (channel.waitsForCallbacks() ? afterCallbacks : submits).add(channel);
    }

    void queueLevel(IoUringChannel channel) {
        level.add(channel);
    }

    void queueReleased(Runnable waiter) {
        releasedWaiters.add(waiter);
    }

    /** The loop's receive and send buffers. */
    Buffers buffers() {
        return buffers;
    }

    /** The number of the last idle sweep. */
    int sweeps() {
        return sweeps;
    }

    /**
     * Looks for sockets that received nothing for a while and lets them give their receive
     * buffers back (see {@link IoUringSocket}), and frees the spare buffers no socket needed since
     * the last sweep, and once that freed enough asks the C allocator to give the pages back
     * ({@link Buffers#releaseFreed()}); the driver calls it about once a second.
     *
     * @return how many sockets started to give their buffers back
     */
    int sweepIdle() {
        sweeps++;
        buffers.trim();
        buffers.releaseFreed();
        int n = 0;
        for (Slab slab : slabs) {
            for (int i = 0, used = slab.used(); i < used; i++) {
                IoUringChannel c = slab.at(i);
                if (c != null && c.sweepIdle(sweeps)) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * The longest the poll may wait, given the engine's {@code timeoutNanos} (negative: until
     * woken): no later than the next sweep while any buffer is held (by a socket, or spare) or
     * freed memory waits to be given back to the system. Without it a loop with nothing to do
     * never swept: measured, 15,000 connections that echoed and closed left the server 35 MiB
     * above its RSS before them until the next connection woke the loop. A loop that holds no
     * buffer still sleeps until woken.
     */
    long boundWait(long timeoutNanos) {
        if (!automaticSweeps || buffers.live() == 0 && !buffers.releasePending()) {
            return timeoutNanos;
        }
        long untilSweep = Math.max(1, nextSweep - polledAt);
        return timeoutNanos < 0 ? untilSweep : Math.min(timeoutNanos, untilSweep);
    }

    /**
     * Submits what the iteration asked for: receives re-armed, one send per socket written to,
     * polls, cancellations of what closing sockets had in flight.
     *
     * @return whether readiness waits to be reported again, so the poll must not block
     */
    boolean beforePoll() {
        long now = System.nanoTime(); // once per poll: only to pace the sweep, never a deadline
        polledAt = now;
        if (automaticSweeps && now - nextSweep >= 0) {
            nextSweep = now + SWEEP_INTERVAL_NANOS;
            sweepIdle();
        } else if (automaticSweeps) {
            buffers.releaseBurst(now); // a field compare unless a burst of buffers was just freed
        }
        submitQueued();
        // A descriptor released just now has a waiter to run after this poll: it must not block.
        return !level.isEmpty() || !releasedWaiters.isEmpty();
    }

    /**
     * Puts what the queued handles asked for into the submission queue: before each poll, and after
     * each completion the ring dispatches ({@link Slab#handle}). A completion can itself ask for an
     * operation (a poll that found bytes asks for the receive that takes them, a send that left
     * bytes behind for the next send), and Netty's dispatch enters the ring again before it returns
     * whenever a pass over the completions leaves submissions queued or the kernel flags completion
     * work (a single issuer with deferred task work, ADR 0011). Queued now, such an operation goes
     * out with that entry, in the same poll, instead of waiting for the next poll's. Receivers only
     * record readiness (the SPI's rule), so the replies a receive causes are written after the poll
     * and still leave with the next one.
     */
    void submitQueued() {
        if (closing) {
            return; // the ring is draining to close: nothing new goes in, the close releases what waits
        }
        IoUringChannel c;
        while ((c = afterCallbacks.poll()) != null) {
            c.submitPending();
        }
        submitAfterCompletion();
    }

    /**
     * After a completion, inside the poll: submits what the handles that do not
     * {@linkplain IoUringChannel#waitsForCallbacks wait for the callbacks} asked for; theirs are
     * queued apart ({@link #queueSubmit}) for the pre-poll pass.
     */
    void submitAfterCompletion() {
        if (closing) {
            return;
        }
        IoUringChannel c;
        while ((c = submits.poll()) != null) {
            c.submitPending();
        }
    }

    /**
     * Reports level-triggered readiness that no completion reported, and runs what waited for
     * descriptors released during the poll; returns how many of both.
     */
    int afterPoll() {
        int reported = runReleasedWaiters();
        int n = level.size();
        for (int i = 0; i < n; i++) {
            IoUringChannel c = level.poll();
            c.levelQueued = false;
            if (!c.isClosing()) {
                int ops = c.levelReady();
                if (ops != 0) {
                    c.report(ops);
                    reported++;
                }
            }
        }
        return reported;
    }

    /**
     * The loop is closing and the ring is about to drain: every handle cancels what it has in
     * flight now, on the ring's thread, so the drain has an end.
     */
    void cancelAll() {
        closing = true;
        // Handles waiting for the pre-poll pass may never have been registered (a socket closed
        // before its first operation): they are not among the open ones, and are released here.
        IoUringChannel c;
        while ((c = submits.poll()) != null || (c = afterCallbacks.poll()) != null) {
            c.cancelForShutdown();
        }
        for (IoUringChannel o : openHandles()) {
            o.cancelForShutdown();
        }
    }

    /**
     * The ring is closed: descriptors whose operations never completed are closed now (their
     * buffers are not freed: see {@link IoUringChannel#release()}), and the spare buffers freed.
     */
    void closeAll() {
        for (IoUringChannel c : openHandles()) {
            c.release();
        }
        buffers.clear();
        runReleasedWaiters();
    }

    /** A copy of the open handles, for passes that release them as they go. */
    private List<IoUringChannel> openHandles() {
        List<IoUringChannel> all = new ArrayList<>();
        for (Slab slab : slabs) {
            for (int i = 0, used = slab.used(); i < used; i++) {
                IoUringChannel c = slab.at(i);
                if (c != null) {
                    all.add(c);
                }
            }
        }
        return all;
    }

    private int runReleasedWaiters() {
        int n = 0;
        Runnable r;
        while ((r = releasedWaiters.poll()) != null) {
            n++;
            try {
                r.run();
            } catch (RuntimeException | LinkageError e) {
                failures().log(LOG, System.Logger.Level.ERROR, "what waited for a socket to close failed", e, r);
            }
        }
        return n;
    }

    @Override
    public IoSocket adopt(IoSocket accepted) throws IOException {
        driver.enterFromLoopThread();
        return IoUringSocket.adopted(accepted, this);
    }

    /** Same family for every address: the socket is {@code AF_INET6} and takes mapped IPv4 ones. */
    @Override
    protected Socket newStream(InetSocketAddress address) {
        return Socket.newSocketStream();
    }

    @Override
    protected IoServerSocket listening(Socket socket, IoReady ready) {
        return new IoUringServerSocket(this, socket, ready);
    }

    @Override
    protected IoSocket connecting(Socket socket, InetSocketAddress remote, IoReady ready, boolean connectedAtOnce)
            throws IOException {
        IoUringSocket s = new IoUringSocket(this, socket, ready, false, remote);
        if (connectedAtOnce) {
            s.finishConnect();
        } else {
            s.awaitConnect();
        }
        return s;
    }
}
