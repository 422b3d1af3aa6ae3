package dev.loop.iouring;

import dev.loop.linux.NettyDriver;
import dev.loop.linux.PollContext;
import dev.loop.spi.IoCounters;
import dev.loop.spi.IoDriver;
import dev.loop.spi.NetIo;

/**
 * The {@link IoDriver} of backend {@code io_uring}: drives Netty's native {@code IoUringIoHandler}
 * from the loop's own iteration. Not thread-safe, except {@link #wakeup()}.
 *
 * <p>One {@code io_uring_enter} per iteration does all the system work: it submits every
 * operation the iteration queued (receives re-armed, sends flushed just before, see
 * {@link IoUringNetIo#beforePoll()}) and waits for completions, with the engine's timeout as a
 * timeout operation in the same call. A poll that may not block and has nothing to submit makes
 * no system call: completions are read from the shared ring.
 *
 * <p>Wake-ups: Netty keeps a read of an eventfd in flight and writes that eventfd only when it is
 * not already signalled and the caller is not the polling thread, so a burst of submissions from
 * other threads costs one write per sleep, as on the other backends. The context it reads
 * <em>live</em> inside {@code run()} makes that safe: a wake-up that lands before the wait begins
 * turns {@link PollContext#canBlock()} false.
 */
final class IoUringDriver extends NettyDriver {
    /** The wait is a timeout operation with a {@code timespec}: nanoseconds; a microsecond is honest. */
    private static final long RESOLUTION_NANOS = 1_000;
    private static final int COMPLETION_QUEUE = 16_384;
    private static final int SUBMISSION_QUEUE = 1_024;
    /**
     * System property: {@code false} sets the ring up without a single issuer, and so without
     * deferred task work. Fewer system calls under continuous load (the kernel posts completions
     * itself instead of flagging work for the next entry, which Netty's dispatch enters the ring
     * for), for more CPU per message (it interrupts the loop thread to do so): measured 0.04-0.06
     * calls per echoed message at 100 connections against 0.23-0.37, and about 30% more CPU
     * (docs/BENCHMARKS.md). For where a system call costs more than here (a sandboxing kernel, a
     * hypervisor that traps them); the default is the single issuer.
     */
    static final String DEFER_TASK_RUN = "loop.iouring.deferTaskRun";

    // What this backend counts (docs/METRICS.md).
    static final int ENTER = 0;
    static final int SQE = 1;
    static final int CQE = 2;

    final IoCounters counters = new IoCounters("io_uring_enter", "sqe", "cqe");
    /** The sockets' submissions counted at the previous run: more since then means the run enters the ring. */
    private long sqesAtLastRun;
    /** The thread the ring was enabled on: the only one whose io_uring_enter it accepts. */
    private Thread ringThread;
    private IoUringNetIo net;

    IoUringDriver() {
        this(!"false".equalsIgnoreCase(System.getProperty(DEFER_TASK_RUN)));
    }

    /** @param deferTaskRun a single issuer with deferred task work (see {@link #DEFER_TASK_RUN}) */
    IoUringDriver(boolean deferTaskRun) {
        super(IoUringBackendProvider.NAME);
        executor.enter();
        // A single issuer with deferred task work (Netty's default, and ours unless DEFER_TASK_RUN
        // says otherwise): completions are processed when
        // the ring's one thread enters it, not by interrupting that thread. One thread is all that
        // ever enters this ring (see enterRing): the kernel pins the issuer when the ring is
        // enabled, which is at the first poll, on the same thread.
        // The completion queue is four times Netty's default: a loop holding thousands of sockets
        // sees a completion per socket at once when they close together or go idle in one sweep,
        // and an overflowing queue costs a warning and a slower path each time (16 bytes an entry).
        // The submission queue is eight times Netty's default (64 bytes an entry): a loop serving
        // 100 busy connections queues a send and a receive for each before one poll, and at 128
        // entries those went out in two system calls, the first only to make room.
        io.netty.channel.uring.IoUringIoHandlerConfig config = new io.netty.channel.uring.IoUringIoHandlerConfig()
                .setRingSize(SUBMISSION_QUEUE).setCqSize(COMPLETION_QUEUE).setSingleIssuer(deferTaskRun);
        drive(io.netty.channel.uring.IoUringIoHandler.newFactory(config).newHandler(executor));
        // Enabled at the first poll, not here: Netty registers the ring's descriptor with the
        // enabling thread (IORING_REGISTER_RING_FDS), and from then on only that thread can enter
        // the ring. A loop group opens its loops on the caller's thread and runs each on its own.
    }

    /**
     * Enables the ring on the calling thread the first time; afterwards refuses any other thread,
     * naming both, because the ring would refuse it with a bare EINVAL.
     */
    private void enterRing(String what) {
        Thread current = Thread.currentThread();
        if (ringThread == null) {
            ringThread = current;
            netty().initialize();
        } else if (ringThread != current) {
            throw new IllegalStateException("backend io_uring: " + what + " on thread " + current.getName()
                    + ", but this loop's ring belongs to thread " + ringThread.getName()
                    + ", which ran it first; an io_uring loop is run and closed by one thread");
        }
    }

    @Override
    public NetIo net() {
        if (net == null) {
            net = new IoUringNetIo(this);
        }
        return net;
    }

    @Override
    public int poll(long timeoutNanos) {
        enterRing("poll");
        executor.enter();
        polls++;

        executor.runPending();
        boolean reportsWaiting = false;
        if (net != null) {
            // Sends are queued here, once per iteration, so everything a connection wrote during
            // the iteration leaves in one operation; sockets still holding received bytes are
            // reported again (the SPI's readiness is level-triggered) and must not wait.
            reportsWaiting = net.beforePoll();
        }
        long timeout = reportsWaiting ? 0 : timeoutNanos;
        if (net != null && timeout != 0) {
            timeout = net.boundWait(timeout); // the idle sweep must run while buffers are held
        }
        if (timeout != 0) {
            sleeps++;
        }
        context.arm(timeout);
        countEnter(timeout);
        int events;
        try {
            events = netty().run(context);
            counters.add(CQE, events); // Netty's run() returns the completions it reaped
        } finally {
            // Cleared after the wait, never before it: a wake-up sent between the engine's
            // "about to sleep" and this poll must still stop the wait.
            context.pollEnded();
            executor.runPending();
        }
        if (net != null) {
            events += net.afterPoll();
        }
        return events;
    }

    /**
     * Netty's run() calls io_uring_enter to wait (a timeout: the engine allows it) or to hand over
     * submissions queued since the last run; else it reads completions from the shared ring
     * without a system call. Counted here because Netty does not say: a wait that finds
     * completions already there does not enter, and is counted anyway.
     */
    private void countEnter(long timeout) {
        long sqes = counters.get(SQE);
        if (timeout != 0 || sqes != sqesAtLastRun) {
            counters.increment(ENTER);
        }
        sqesAtLastRun = sqes;
    }

    @Override
    public IoCounters counters() {
        return counters;
    }

    @Override
    public long resolutionNanos() {
        return RESOLUTION_NANOS;
    }

    @Override
    public void close() {
        enterRing("close");
        executor.enter();
        // Every handle cancels what it has in flight, then Netty waits for the ring to drain (its
        // own close of each handle finds them closing already) and closes the ring and eventfd.
        if (net != null) {
            net.cancelAll();
        }
        netty().prepareToDestroy();
        executor.runPending();
        netty().destroy();
        if (net != null) {
            net.closeAll(); // any descriptor whose operations never completed
        }
    }
}
