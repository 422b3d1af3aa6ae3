package dev.loop.iouring;

import io.netty.channel.unix.Buffer;
import io.netty.util.internal.CleanableDirectBuffer;
import io.netty.util.internal.PlatformDependent;

/**
 * The loop's receive and send buffers: native memory allocated and freed by this backend, sizes in
 * powers of two from {@link #MIN} to {@link #MAX}, spares of each size kept in a bounded pool
 * ({@link Spares}). Not thread-safe: loop thread only.
 *
 * <p>A buffer is given back only when no operation of the ring uses it any more (its receive or
 * send completed, or was cancelled and the cancellation completed): the kernel writes into a
 * receive buffer, and reads a send buffer, until the operation's completion. A buffer still in
 * use when the ring closed undrained is never given back, and so never freed: leaking it is the
 * only safe choice.
 *
 * <p>Netty allocates the memory ({@link PlatformDependent#allocateDirect(int)}) and frees it when
 * asked ({@link CleanableDirectBuffer#clean()}), with whatever the running JDK offers for that;
 * a buffer from {@code ByteBuffer.allocateDirect} could be freed only by a collection.
 */
final class Buffers {
    static final int MIN = 2 * 1024;
    static final int MAX = 64 * 1024;
    private static final int SIZES = Integer.numberOfTrailingZeros(MAX / MIN) + 1;
    /**
     * Bytes of spares kept per size and direction: many small spares (a burst of new connections
     * each receives a little), few large ones (a large buffer is for a bulk transfer, which keeps
     * it while busy anyway).
     */
    private static final int SPARE_BYTES = 1024 * 1024;
    /**
     * Bytes freed since the allocator last gave its free pages back after which a sweep asks it to
     * again at once ({@link #releaseFreed()}): a burst of connections ending.
     */
    static final long RELEASE_BYTES = 4L * 1024 * 1024;
    /**
     * Fewer bytes than this freed are not worth a walk over the allocator's arenas; more wait one
     * sweep interval, so that the end of a burst (freed while a sweep ran, or spares trimmed after
     * it) is given back too, and a loop that keeps freeing asks at most once an interval.
     */
    static final long RELEASE_MIN_BYTES = 256 * 1024;
    /**
     * The least time between two releases asked for outside a sweep ({@link #releaseBurst}): a
     * release costs about 80 us per MiB given back (30 us when there is nothing), so a loop that
     * keeps freeing bursts spends at most a fraction of a percent on them.
     */
    static final long BURST_RELEASE_INTERVAL_NANOS = 100_000_000L;

    private final Spares<Inbound>[] receive;
    private final Spares<Outbound>[] send;
    /** Buffers allocated so far (for tests and figures); those live are this less those freed. */
    long allocated;
    /** Receive buffers given back, freed as they went or kept as spares (for tests). */
    long givenBack;
    /** Bytes of buffers freed so far, and that figure when the allocator last gave pages back. */
    long freedBytes;
    private long freedAtRelease;
    /** Bytes freed and not given back already waited since the last sweep. */
    private boolean releasePending;
    /** {@code System.nanoTime()} of the last release asked for by {@link #releaseBurst}. */
    private long burstReleasedAt;
    private boolean burstReleased;
    /** How many times the allocator was asked to give its free pages back (for tests and figures). */
    long releases;

    @SuppressWarnings("unchecked")
    Buffers() {
        receive = new Spares[SIZES];
        send = new Spares[SIZES];
        for (int i = 0; i < SIZES; i++) {
            int bound = SPARE_BYTES / (MIN << i);
            receive[i] = new Spares<>(bound, this::freeReceive);
            send[i] = new Spares<>(bound, this::freeSend);
        }
    }

    /** The size a buffer for {@code bytes} takes: the smallest power of two that holds them, within [MIN, MAX]. */
    static int sizeFor(int bytes) {
        if (bytes <= MIN) {
            return MIN;
        }
        return Math.min(MAX, Integer.highestOneBit(bytes - 1) << 1);
    }

    private static int index(int size) {
        return Integer.numberOfTrailingZeros(size / MIN);
    }

    /** An empty receive buffer of {@code size} (a power of two within [MIN, MAX]). */
    Inbound takeReceive(int size) {
        Inbound b = receive[index(size)].poll();
        if (b == null) {
            allocated++;
            return new Inbound(PlatformDependent.allocateDirect(size));
        }
        return b.reset();
    }

    /** A receive buffer no operation uses any more. */
    void giveBackReceive(Inbound b) {
        givenBack++;
        receive[index(b.capacity)].giveBack(b);
    }

    /** An empty send buffer that holds at least {@code bytes} (at most {@link #MAX}). */
    Outbound takeSend(int bytes) {
        int size = sizeFor(bytes);
        Outbound o = send[index(size)].poll();
        if (o == null) {
            allocated++;
            return new Outbound(PlatformDependent.allocateDirect(size));
        }
        return o.reset();
    }

    /** A send buffer whose send completed (or never started). */
    void giveBackSend(Outbound o) {
        send[index(o.capacity)].giveBack(o);
    }

    /** Frees spares no take needed since the last trim; returns how many. */
    int trim() {
        int n = 0;
        for (int i = 0; i < SIZES; i++) {
            n += receive[i].trim() + send[i].trim();
        }
        return n;
    }

    private void freeReceive(Inbound b) {
        freedBytes += b.capacity;
        b.free();
    }

    private void freeSend(Outbound o) {
        freedBytes += o.capacity;
        o.free();
    }

    /**
     * Asks the C allocator to give its free pages back ({@link MallocTrim}) when at least
     * {@link #RELEASE_BYTES} were freed since it last did, or at least {@link #RELEASE_MIN_BYTES}
     * that already waited a sweep; the idle sweep calls it, after {@link #trim()}. Returns whether
     * it asked.
     */
    boolean releaseFreed() {
        long pending = freedBytes - freedAtRelease;
        if (pending < RELEASE_MIN_BYTES || !MallocTrim.available()) {
            return false;
        }
        if (pending < RELEASE_BYTES && !releasePending) {
            releasePending = true;
            return false;
        }
        releasePending = false;
        freedAtRelease = freedBytes;
        releases++;
        MallocTrim.trim();
        return true;
    }

    /**
     * Asks the C allocator to give its free pages back at once, between sweeps, when a burst freed
     * at least {@link #RELEASE_BYTES} since it last did and the last such call is
     * {@link #BURST_RELEASE_INTERVAL_NANOS} old: a burst of sends that all completed (the ring's
     * batch, beyond the spares) would otherwise stay resident until the next sweep. Measured
     * right after 3,000 connections each echoed a kilobyte: 2.0 KiB per connection before this,
     * the send buffers the batch had freed. {@code now} is the caller's {@code System.nanoTime()}.
     */
    boolean releaseBurst(long now) {
        if (freedBytes - freedAtRelease < RELEASE_BYTES || !MallocTrim.available()
                || burstReleased && now - burstReleasedAt < BURST_RELEASE_INTERVAL_NANOS) {
            return false;
        }
        burstReleased = true;
        burstReleasedAt = now;
        releasePending = false;
        freedAtRelease = freedBytes;
        releases++;
        MallocTrim.trim();
        return true;
    }

    /** Whether freed memory waits for a later sweep to be given back to the system. */
    boolean releasePending() {
        return releasePending;
    }

    /** Frees every spare: the loop is closing. */
    void clear() {
        for (int i = 0; i < SIZES; i++) {
            receive[i].clear();
            send[i].clear();
        }
    }

    /**
     * The address of {@code b}'s memory for the kernel. Which allocator Netty picks depends on the
     * JDK and its flags, and not every one knows its address ({@code memoryAddress()} is then 0:
     * with {@code --sun-misc-unsafe-memory-access=allow} on JDK 25 a receive into it failed with
     * EFAULT), so the address is asked of the buffer itself when the allocator cannot say.
     */
    static long address(CleanableDirectBuffer b) {
        return b.hasMemoryAddress() ? b.memoryAddress() : Buffer.memoryAddress(b.buffer());
    }

    /** Buffers allocated and not freed: held by sockets, or spare. */
    long live() {
        long freed = 0;
        for (int i = 0; i < SIZES; i++) {
            freed += receive[i].freed + send[i].freed;
        }
        return allocated - freed;
    }

    /** Spare buffers held now, of every size and both directions. */
    int spares() {
        int n = 0;
        for (int i = 0; i < SIZES; i++) {
            n += receive[i].size() + send[i].size();
        }
        return n;
    }

    /** The most spares kept of one receive size (for tests). */
    static int receiveBound(int size) {
        return SPARE_BYTES / size;
    }
}
