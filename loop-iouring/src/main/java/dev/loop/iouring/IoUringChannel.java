package dev.loop.iouring;

import dev.loop.spi.IoReady;
import dev.loop.spi.Readiness;
import io.netty.channel.unix.Socket;
import java.io.IOException;

/**
 * A socket registered with the ring, and the rule every socket of this backend keeps: its
 * descriptor is closed only once no operation of its own is still in flight. Not thread-safe:
 * loop thread only.
 *
 * <p>Operations in the kernel hold the file, not the number; an operation still queued in the
 * submission ring holds only the number, which a close would free for the next {@code accept} to
 * reuse. So {@link #close()} cancels what is in flight and the descriptor goes when the last
 * completion (the cancellations' own included) has arrived; if the loop closes first, the driver
 * closes what is left (readiness backends close at once: they have nothing in flight).
 */
abstract class IoUringChannel {
    final IoUringNetIo net;
    final Socket socket;
    final int fd;
    IoReady ready;
    /** The shared registration this handle's operations go through (null until the first), and its slot. */
    Slab slab;
    int slot;
    private int inFlight;
    private boolean closing;
    private boolean released;
    /** Queued in the driver's list of handles to report again after the next poll. */
    boolean levelQueued;
    private boolean submitQueued;
    private boolean shuttingDown;
    /** What waits for the descriptor to be gone ({@link #whenReleased}); rarely more than one. */
    private Runnable onRelease;

    IoUringChannel(IoUringNetIo net, Socket socket, IoReady ready) {
        this(net, socket, socket.intValue(), ready);
    }

    /** {@code socket} is null for a descriptor this backend does not own (a watch). */
    IoUringChannel(IoUringNetIo net, Socket socket, int fd, IoReady ready) {
        this.net = net;
        this.socket = socket;
        this.fd = fd;
        this.ready = ready;
    }

    /**
     * Queues {@code ops} for the next {@code io_uring_enter} and returns its id, for a cancel.
     * Called only from {@link #submitPending()}, on the thread that polls the ring (before its
     * poll, or inside it as a completion is dispatched): a submission from anywhere else could find
     * the submission queue full and have to enter a ring that only the polling thread may enter.
     */
    final long submit(io.netty.channel.uring.IoUringIoOps ops) {
        if (slab == null) {
            return 0; // not registered: the ring is shutting down (see data)
        }
        try {
            long id = slab.registration.submit(ops);
            if (id == -1) { // Netty's INVALID_ID: the registration was cancelled (the loop is closing)
                return 0;
            }
            inFlight++;
            net.submitted();
            return id;
        } catch (RuntimeException e) {
            return 0; // the ring is shutting down: nothing more is armed, the close releases us
        }
    }

    /**
     * The {@code data} of an operation of this handle tagged {@code tag} (an {@link Ops} tag): the
     * handle's slot in its shared registration, taken at its first operation, and the tag.
     */
    final short data(int tag) {
        if (slab == null) {
            try {
                net.register(this);
            } catch (IOException | RuntimeException e) {
                return (short) tag; // the ring is shutting down; submit() will not submit
            }
        }
        return (short) (slot << Slab.TAG_BITS | tag);
    }

    /** Asks the driver for a {@link #submitPending()} call before its next poll. */
    final void requestSubmit() {
        if (!submitQueued) {
            submitQueued = true;
            net.queueSubmit(this);
        }
    }

    /**
     * The driver's pre-poll pass, on the polling thread: submits whatever this handle asked for
     * since the last pass (a receive, a send, a poll, cancellations).
     */
    final void submitPending() {
        submitQueued = false;
        if (released) {
            return;
        }
        if (closing) {
            cancelInFlight();
            if (inFlight == 0) {
                release();
            }
            return;
        }
        submitRequested();
    }

    /** Submits the operations this handle wants now; not called once it is closing. */
    abstract void submitRequested();

    /**
     * Whether what this handle asks for must wait for the pre-poll pass, after the callbacks ran,
     * rather than leave with the entry that follows a completion ({@link IoUringNetIo#submitAfterCompletion}):
     * a level-triggered poll re-armed before the callbacks read would find the same bytes again at
     * once, and the ring would be entered again and again within one poll.
     */
    boolean waitsForCallbacks() {
        return false;
    }

    /** One of this handle's operations, tagged {@code tag}, completed; from its {@link Slab}. */
    final void completion(int tag, int res, int flags) {
        inFlight--;
        if (tag != Ops.CANCEL) {
            completed(tag, res, flags);
        }
        if (closing && inFlight == 0 && !submitQueued) {
            release();
        }
    }

    /**
     * One of this handle's operations completed with {@code res} (a count, or a negated errno);
     * {@code flags} are the completion's ({@code IORING_CQE_F_*}).
     */
    abstract void completed(int op, int res, int flags);

    /**
     * Starts closing: at the next pre-poll pass, what is in flight is cancelled (or, for bytes
     * already taken, left to finish), and the descriptor closes with the last completion.
     */
    final void closeWhenIdle() {
        if (closing) {
            return;
        }
        closing = true;
        requestSubmit();
    }

    /**
     * Submits a cancel for each operation in flight that should not be waited for, and whatever
     * must still leave (a send of bytes already taken); on the polling thread, once per pass.
     */
    abstract void cancelInFlight();

    /**
     * The loop is closing: everything in flight is cancelled now, sends of bytes already taken
     * included, because the ring drains before it closes and a send to a peer that stopped
     * reading would never complete.
     */
    final void cancelForShutdown() {
        if (released) {
            return;
        }
        closing = true;
        shuttingDown = true;
        submitQueued = false;
        cancelInFlight();
        if (inFlight == 0) {
            release();
        }
    }

    /** Whether the loop is closing under this handle: nothing may be waited for. */
    final boolean shuttingDown() {
        return shuttingDown;
    }

    final boolean isClosing() {
        return closing;
    }

    /**
     * Closes the descriptor and gives back what the handle holds; once. Buffers go back only when
     * nothing is in flight: with operations that never completed (the ring closed without them),
     * the kernel may still write into a receive buffer, so it is left allocated rather than freed.
     */
    final void release() {
        if (released) {
            return;
        }
        released = true;
        closeDescriptor();
        if (inFlight == 0) {
            freeBuffers();
        }
        net.released(this);
        if (onRelease != null) {
            net.queueReleased(onRelease); // run after the poll, with the readiness it reports
            onRelease = null;
        }
    }

    /**
     * Runs {@code released} once the descriptor is closed: now if it is, else when the last
     * operation in flight has completed (the kernel holds the socket, its port or name with it,
     * until then; it then runs after that poll, never inside it). Implements
     * {@code IoHandle.whenReleased} for every socket kind here.
     */
    public final void whenReleased(Runnable released) {
        if (this.released) {
            released.run();
        } else if (onRelease == null) {
            onRelease = released;
        } else {
            Runnable first = onRelease;
            onRelease = () -> {
                first.run();
                released.run();
            };
        }
    }

    /** Closes the descriptor this handle owns; a watch owns none (it is the program's). */
    void closeDescriptor() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Nothing is left to read or write on it; close(2) fails only on a bad descriptor.
        }
    }

    /** Returns buffers to the backend; after the descriptor closed and nothing is in flight. */
    void freeBuffers() {
    }

    /**
     * Reports {@code ops} to the attached receiver, if any, through {@link Readiness#deliver}: one
     * that throws is reported to the loop there, as on every backend, instead of reaching Netty's
     * dispatch, which would only log it at debug level.
     */
    final void report(int ops) {
        Readiness.deliver(ready, ops, this, net.failures());
    }

    /** Asks the driver to report this handle's level-triggered readiness after the next poll. */
    final void reportAgain() {
        if (!levelQueued) {
            levelQueued = true;
            net.queueLevel(this);
        }
    }

    /**
     * The driver's periodic sweep for idle sockets, numbered {@code sweep}: a handle may give back
     * memory it holds while idle. Returns whether it started to.
     */
    boolean sweepIdle(int sweep) {
        return false;
    }

    /** What is still ready now, among the directions asked for: for the driver's level pass. */
    abstract int levelReady();

    /** Closes the handle: see {@link #closeWhenIdle()}. */
    public void close() {
        closeWhenIdle();
    }

    public final boolean isOpen() {
        return !closing;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[fd " + fd + "]";
    }
}
