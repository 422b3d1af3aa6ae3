package dev.loop.timerwheel;

import dev.loop.heap.HeapTimerQueue;
import dev.loop.spi.TimerNode;
import dev.loop.spi.TimerQueue;
import java.util.function.Consumer;

/**
 * Not thread-safe. The {@code wheel} timer strategy: a hierarchical hashed timing wheel run by the
 * loop thread itself (no timer thread), with O(1) add and cancel for timers beyond the current tick.
 *
 * <p><b>Layout.</b> Time is cut into ticks of {@link #tickNanos()} (1 ms by default). Level 0 has
 * {@link #wheelSize()} buckets of one tick each; every level above has as many buckets, each as wide
 * as a whole revolution of the level below. Levels are added until they cover all 64 bits of a tick
 * number, so any deadline, days or {@code Long.MAX_VALUE} away, has a bucket without an overflow
 * list and without arithmetic that can wrap. A bucket is a doubly linked list threaded through the
 * nodes' own {@link TimerNode#prev()}/{@link TimerNode#next()}, and the node's {@link TimerNode#slot()}
 * names its bucket, so cancel is an O(1) unlink and the wheel holds no per-timer memory of its own:
 * memory falls back the moment timers go away.
 *
 * <p><b>Addressing.</b> Buckets are addressed by absolute tick bits (level {@code k} looks at bits
 * {@code [k*b, (k+1)*b)} of the tick, {@code b = log2(wheelSize)}), and a timer sits at the lowest
 * level at which its tick and the wheel's current tick agree on all higher bits. So every occupied
 * bucket lies ahead of the current position on its level, and "the next thing to do" is the lowest
 * set bit of a per-level occupancy bitmap: the wheel jumps over empty time instead of stepping
 * through it tick by tick, and {@link #nextDeadline()} costs a few bit scans. When the current tick
 * enters a higher-level bucket's span, that bucket is cascaded: its timers drop to lower levels. A
 * timer is cascaded at most once per level (two cascades at most for delays under 1.2 hours with the
 * defaults).
 *
 * <p><b>Order.</b> When the current tick reaches a level-0 bucket, its timers move to a small due
 * heap (a {@link HeapTimerQueue}, the default strategy's heap) that hands them out in strict
 * (deadline, sequence) order and never before their deadline; {@link #expire} takes from the wheel
 * only when that heap is empty, and everything in the heap is earlier than everything still in the
 * wheel, so the whole queue is strictly ordered. A timer added with a deadline in a tick already
 * reached goes straight into that heap (O(log k) for k timers of that tick).
 *
 * <p><b>Start.</b> The wheel learns the time only from {@link #expire}; timers added before its first
 * call wait on a plain list and are placed when it comes (once, O(n)).
 */
public final class TimerWheel implements TimerQueue {
    /** Default tick: one millisecond, the precision the engine's backends can sleep to. */
    public static final long DEFAULT_TICK_NANOS = 1_000_000L;
    /** Default buckets per level: 256 ticks (256 ms) on level 0, 65.5 s on level 1, 4.7 h on level 2. */
    public static final int DEFAULT_WHEEL_SIZE = 256;
    /** Smallest wheel size accepted (one bit per level; 64 levels). */
    public static final int MIN_WHEEL_SIZE = 2;
    /** Largest wheel size accepted (16 bits per level; 4 levels, 1 MB of bucket heads with compressed references). */
    public static final int MAX_WHEEL_SIZE = 1 << 16;

    /**
     * Nodes {@link #nextDeadline()} reads in the first occupied bucket to answer with the exact
     * earliest deadline; a bigger bucket answers with its start (earlier, which the contract allows)
     * so the answer stays O(1).
     */
    static final int EXACT_SCAN_LIMIT = 8;

    /** Initial array of the due heap: one tick's timers in steady state are few. */
    private static final int DUE_INITIAL_CAPACITY = 16;

    private static final int NO_SLOT = -1;
    /** Slot of a node waiting for the first {@link #expire}; bucket {@code b} is slot {@code -2 - b}. */
    private static final int PENDING_SLOT = Integer.MIN_VALUE;

    private final long tickNanos;
    private final int wheelSize;
    private final int bits;
    private final int levels;
    private final int wordsPerLevel;
    /** Level of a tick difference by the index of its highest set bit (avoids a division per add). */
    private final byte[] levelOfBit = new byte[Long.SIZE];
    /** Smallest signed tick whose start in nanoseconds does not underflow. */
    private final long minStartTick;

    private final TimerNode[] buckets;
    /** One bit per bucket: set while the bucket is non-empty. */
    private final long[] occupied;
    /** Bit {@code k} set while level {@code k} has a timer. */
    private long occupiedLevels;
    private int wheelCount;

    /**
     * The "due" stage: timers of ticks already reached, in strict (deadline, sequence) order. It
     * turns one bucket (whose timers share only a tick) into exact order and lets {@link #expire}
     * stop in the middle of a tick and resume. It holds about one tick's timers, so it starts small;
     * after a burst in one tick its array shrinks back to {@link HeapTimerQueue#RETAINED_CAPACITY}.
     *
     * <p>Slot contract: in the heap a node's slot is its array index ({@code >= 0}); in the wheel it
     * is {@link #NO_SLOT}, {@link #PENDING_SLOT} or {@code -2 - bucket}, all negative, so
     * {@link #remove} tells them apart by sign. {@link #insert} hands the heap only nodes at
     * {@link #NO_SLOT}, as {@link HeapTimerQueue#add} requires; a bucket moves in whole through
     * {@link HeapTimerQueue#load}, which overwrites the bucket codes.
     */
    private final HeapTimerQueue due = new HeapTimerQueue(DUE_INITIAL_CAPACITY);

    private boolean anchored;
    /**
     * The first tick not yet reached, as an unsigned number (signed tick with its sign bit flipped,
     * so that unsigned order is time order and bit addressing works across zero). Timers in the
     * wheel have ticks {@code >= cur}; timers in {@link #due} have ticks {@code < cur}.
     */
    private long cur;
    private TimerNode pending;
    private int pendingCount;

    /** Cached answer of {@link #nextDeadline()}: adds lower it, anything else invalidates it. */
    private long cachedNext = NO_DEADLINE;
    private boolean nextKnown = true;

    /** A wheel with a {@value #DEFAULT_TICK_NANOS} ns tick and {@value #DEFAULT_WHEEL_SIZE} buckets per level. */
    public TimerWheel() {
        this(DEFAULT_TICK_NANOS, DEFAULT_WHEEL_SIZE);
    }

    /**
     * A wheel with the given resolution and shape.
     *
     * @param tickNanos width of a level-0 bucket; timers fire at most this much late (plus loop latency)
     * @param wheelSize buckets per level, a power of two in [{@value #MIN_WHEEL_SIZE}, {@value #MAX_WHEEL_SIZE}]
     * @throws IllegalArgumentException if either is out of range
     */
    public TimerWheel(long tickNanos, int wheelSize) {
        if (tickNanos < 1) {
            throw new IllegalArgumentException("tickNanos must be at least 1: " + tickNanos);
        }
        if (wheelSize < MIN_WHEEL_SIZE || wheelSize > MAX_WHEEL_SIZE || Integer.bitCount(wheelSize) != 1) {
            throw new IllegalArgumentException("wheelSize must be a power of two in [" + MIN_WHEEL_SIZE + ", "
                    + MAX_WHEEL_SIZE + "]: " + wheelSize);
        }
        this.tickNanos = tickNanos;
        this.wheelSize = wheelSize;
        this.bits = Integer.numberOfTrailingZeros(wheelSize);
        this.levels = (Long.SIZE - 1) / bits + 1;
        this.wordsPerLevel = Math.max(1, wheelSize >>> 6);
        for (int b = 0; b < Long.SIZE; b++) {
            levelOfBit[b] = (byte) (b / bits);
        }
        this.minStartTick = Long.MIN_VALUE / tickNanos;
        this.buckets = new TimerNode[levels * wheelSize];
        this.occupied = new long[levels * wordsPerLevel];
    }

    /** Width of one level-0 bucket, in nanoseconds. */
    public long tickNanos() {
        return tickNanos;
    }

    /** Buckets per level. */
    public int wheelSize() {
        return wheelSize;
    }

    /** Number of levels, enough to cover every 64-bit tick number. */
    public int levels() {
        return levels;
    }

    // ------------------------------------------------------------------ add and remove

    @Override
    public void add(TimerNode node) {
        if (node.slot() != NO_SLOT) {
            throw new IllegalStateException("timer is already in a queue: " + node);
        }
        if (anchored) {
            insert(node);
        } else {
            node.prev(null);
            node.next(pending);
            if (pending != null) {
                pending.prev(node);
            }
            pending = node;
            node.slot(PENDING_SLOT);
            pendingCount++;
        }
        if (nextKnown && node.deadline() < cachedNext) {
            cachedNext = node.deadline();
        }
    }

    /**
     * Puts a node that is in no list (slot {@link #NO_SLOT}, which the due heap checks) where it
     * belongs relative to {@link #cur}.
     */
    private void insert(TimerNode node) {
        long tick = tickOf(node.deadline());
        if (Long.compareUnsigned(tick, cur) < 0) {
            due.add(node);
        } else {
            place(node, tick);
            wheelCount++;
        }
    }

    /** Links a node into the bucket for {@code tick >= cur}; counts are the caller's business. */
    private void place(TimerNode node, long tick) {
        int level = levelOfBit[63 - Long.numberOfLeadingZeros((tick ^ cur) | 1)];
        int b = (level << bits) | ((int) (tick >>> (level * bits)) & (wheelSize - 1));
        TimerNode head = buckets[b];
        node.prev(null);
        node.next(head);
        if (head != null) {
            head.prev(node);
        } else {
            int idx = b & (wheelSize - 1);
            occupied[level * wordsPerLevel + (idx >>> 6)] |= 1L << idx; // shifts count mod 64
            occupiedLevels |= 1L << level;
        }
        buckets[b] = node;
        node.slot(-2 - b);
    }

    @Override
    public boolean remove(TimerNode node) {
        int s = node.slot();
        if (s >= 0) {
            if (!due.remove(node)) {
                return false;
            }
        } else if (s == PENDING_SLOT) {
            if (!unlink(node, pending)) {
                return false;
            }
            if (node.prev() == null) {
                pending = node.next();
            }
            pendingCount--;
            detach(node);
        } else if (s <= -2 && -2 - s < buckets.length) {
            int b = -2 - s;
            if (!unlink(node, buckets[b])) {
                return false;
            }
            if (node.prev() == null) {
                buckets[b] = node.next();
                if (node.next() == null) {
                    markEmpty(b);
                }
            }
            wheelCount--;
            detach(node);
        } else {
            return false;
        }
        nextKnown = false;
        return true;
    }

    /**
     * Unlinks {@code node} from its neighbours if it really is in the list starting at
     * {@code head}; leaves the node's own links for the caller to read.
     */
    private static boolean unlink(TimerNode node, TimerNode head) {
        TimerNode p = node.prev();
        TimerNode n = node.next();
        if (p == null ? head != node : p.next() != node) {
            return false;
        }
        if (p != null) {
            p.next(n);
        }
        if (n != null) {
            n.prev(p);
        }
        return true;
    }

    private static void detach(TimerNode node) {
        node.prev(null);
        node.next(null);
        node.slot(NO_SLOT);
    }

    private void markEmpty(int b) {
        int level = b >>> bits;
        int base = level * wordsPerLevel;
        int idx = b & (wheelSize - 1);
        occupied[base + (idx >>> 6)] &= ~(1L << idx);
        for (int w = 0; w < wordsPerLevel; w++) {
            if (occupied[base + w] != 0) {
                return;
            }
        }
        occupiedLevels &= ~(1L << level);
    }

    // ------------------------------------------------------------------ time

    @Override
    public long nextDeadline() {
        if (!nextKnown) {
            cachedNext = computeNextDeadline();
            nextKnown = true;
        }
        return cachedNext;
    }

    private long computeNextDeadline() {
        if (size() == 0) {
            return NO_DEADLINE;
        }
        if (!anchored) {
            long min = NO_DEADLINE;
            for (TimerNode x = pending; x != null; x = x.next()) {
                min = Math.min(min, x.deadline());
            }
            return min;
        }
        TimerNode first = due.peek();
        if (first != null) {
            return first.deadline(); // everything in the heap is earlier than the wheel
        }
        // The lowest occupied level's first bucket holds the earliest timer: lower levels are empty
        // and higher ones start after this bucket's span ends.
        int level = Long.numberOfTrailingZeros(occupiedLevels);
        int idx = firstOccupied(level);
        TimerNode head = buckets[(level << bits) | idx];
        long min = NO_DEADLINE;
        int seen = 0;
        for (TimerNode x = head; x != null; x = x.next()) {
            if (++seen > EXACT_SCAN_LIMIT) {
                return startNanos(bucketStart(level, idx));
            }
            min = Math.min(min, x.deadline());
        }
        return min;
    }

    @Override
    public int expire(long now, int limit, Consumer<? super TimerNode> sink) {
        if (!anchored) {
            anchor(now);
        }
        nextKnown = false;
        long target = tickOf(now);
        int n = 0;
        while (n < limit) {
            if (due.size() == 0) {
                if (!pullDueBucket(target)) {
                    break;
                }
            } else {
                n += due.expire(now, limit - n, sink);
                if (due.size() != 0) {
                    break; // the limit is reached, or the heap's head (so all of the wheel) is later
                }
            }
        }
        return n;
    }

    /** Takes the current time from the first {@link #expire} and places the timers added before it. */
    private void anchor(long now) {
        anchored = true;
        cur = tickOf(now);
        TimerNode x = pending;
        pending = null;
        pendingCount = 0;
        while (x != null) {
            TimerNode next = x.next();
            detach(x);
            insert(x);
            x = next;
        }
    }

    /**
     * Moves the wheel forward to the first level-0 bucket at or before {@code target} (cascading
     * higher buckets on the way) and loads it into the empty due heap.
     *
     * @return false if no bucket is due by {@code target}; then {@link #cur} is {@code target + 1}
     */
    private boolean pullDueBucket(long target) {
        while (occupiedLevels != 0) {
            int level = Long.numberOfTrailingZeros(occupiedLevels);
            int idx = firstOccupied(level);
            long start = bucketStart(level, idx);
            int b = (level << bits) | idx;
            if (level == 0) {
                if (Long.compareUnsigned(start, target) > 0) {
                    break;
                }
                TimerNode chain = buckets[b];
                buckets[b] = null;
                markEmpty(b);
                wheelCount -= due.load(chain);
                cur = start + 1;
                return true;
            }
            // A higher bucket is cascaded when the current tick enters its span: target + 1 is
            // where cur is about to go (target is clamped below the largest unsigned tick).
            if (Long.compareUnsigned(start, target + 1) > 0) {
                break;
            }
            cur = start;
            TimerNode x = buckets[b];
            buckets[b] = null;
            markEmpty(b);
            while (x != null) {
                TimerNode next = x.next();
                place(x, tickOf(x.deadline()));
                x = next;
            }
        }
        // Nothing occupied lies between cur and target + 1, so jumping there skips only empty time.
        if (Long.compareUnsigned(target + 1, cur) > 0) {
            cur = target + 1;
        }
        return false;
    }

    private int firstOccupied(int level) {
        int base = level * wordsPerLevel;
        for (int w = 0; ; w++) {
            long word = occupied[base + w];
            if (word != 0) {
                return (w << 6) + Long.numberOfTrailingZeros(word);
            }
        }
    }

    /** First tick (unsigned) of bucket {@code idx} of {@code level} in cur's current revolution. */
    private long bucketStart(int level, int idx) {
        int shift = level * bits;
        int above = shift + bits;
        long high = above >= Long.SIZE ? 0 : cur & (-1L << above);
        return high | ((long) idx << shift);
    }

    /**
     * The unsigned tick of a time: floor division, sign bit flipped. Clamped below the largest
     * unsigned value so that {@code tick + 1} never wraps (it costs a timer at {@code Long.MAX_VALUE}
     * with a 1 ns tick nothing: the heap still checks its exact deadline).
     */
    private long tickOf(long nanos) {
        long t = Math.floorDiv(nanos, tickNanos) ^ Long.MIN_VALUE;
        return t == -1L ? -2L : t;
    }

    /** Start of an unsigned tick in nanoseconds, saturated at {@code Long.MIN_VALUE}. */
    private long startNanos(long tick) {
        long signed = tick ^ Long.MIN_VALUE;
        return signed < minStartTick ? Long.MIN_VALUE : signed * tickNanos;
    }

    // ------------------------------------------------------------------ bulk

    @Override
    public void clear(Consumer<? super TimerNode> sink) {
        // Gather everything into one chain and reset first, so the sink sees a consistent (empty)
        // queue even if it adds or removes timers.
        TimerNode chain = due.drainTo(null);
        chain = prependList(pending, chain);
        pending = null;
        pendingCount = 0;
        while (occupiedLevels != 0) {
            int level = Long.numberOfTrailingZeros(occupiedLevels);
            int b = (level << bits) | firstOccupied(level);
            chain = prependList(buckets[b], chain);
            buckets[b] = null;
            markEmpty(b);
        }
        wheelCount = 0;
        cachedNext = NO_DEADLINE;
        nextKnown = true;
        while (chain != null) {
            TimerNode next = chain.next();
            detach(chain);
            sink.accept(chain);
            chain = next;
        }
    }

    /** Links the list starting at {@code head} in front of {@code chain}; returns the new chain. */
    private static TimerNode prependList(TimerNode head, TimerNode chain) {
        if (head == null) {
            return chain;
        }
        TimerNode tail = head;
        while (tail.next() != null) {
            tail = tail.next();
        }
        tail.next(chain);
        return head;
    }

    @Override
    public int size() {
        return pendingCount + wheelCount + due.size();
    }

    /** Capacity of the due heap's array, for tests that check memory falls back after a burst. */
    int dueCapacity() {
        return due.capacity();
    }

    /** Occupied buckets across all levels, for tests that check the wheel empties. */
    int occupiedBuckets() {
        int n = 0;
        for (long w : occupied) {
            n += Long.bitCount(w);
        }
        return n;
    }

    @Override
    public String toString() {
        return "TimerWheel[tick=" + tickNanos + "ns, size=" + wheelSize + ", levels=" + levels + ", timers=" + size() + "]";
    }
}
