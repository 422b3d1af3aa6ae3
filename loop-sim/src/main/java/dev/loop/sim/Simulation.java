package dev.loop.sim;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.concurrent.locks.Condition;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * A whole networked program on one simulated network, on virtual time, in one order decided by a
 * seed. Each {@linkplain #host host} runs a loop of backend {@code sim}; only one loop runs at a
 * time, and the thread that calls {@link #run} or {@link #runUntil} (the scheduler) decides which:
 * among the loops that have something to do (a callback ready, a timer due, I/O arrived) it picks
 * one by the seeded random source; when none has, it moves time to the next event (a timer of any
 * host, a segment arriving) at once. The same seed gives the same events in the same order.
 *
 * <p>Not thread-safe: one test thread drives a simulation. Faults and scripts ({@link #faults()},
 * {@link #at}) are set from that thread.
 */
public final class Simulation implements AutoCloseable {
    /** When a lost segment or connect request is sent again. */
    static final long RETRANSMIT_NANOS = Duration.ofMillis(200).toNanos();
    /** The most turns a run may give without time moving: a loop that never idles is a livelock. */
    private static final long MAX_TURNS_AT_ONE_INSTANT = 1_000_000;

    static final ThreadLocal<Runner> OPENING = new ThreadLocal<>();

    private final long seed;
    private final SplittableRandom random;
    private final SimNetwork network;
    private final Faults faults;
    private final Condition schedulerWoken;
    private final List<Runner> runners = new ArrayList<>();
    private final PriorityQueue<Scripted> script = new PriorityQueue<>();
    private final List<String> trace = new ArrayList<>();
    private boolean tracing;
    private volatile long now;
    private long scriptSequence;
    private int nextAddress = 1;
    private long turnsAtThisInstant;

    private record Scripted(long at, long seq, Runnable action) implements Comparable<Scripted> {
        @Override
        public int compareTo(Scripted o) {
            return at != o.at ? Long.compare(at, o.at) : Long.compare(seq, o.seq);
        }
    }

    private Simulation(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
        this.network = new SimNetwork(this);
        this.faults = new Faults(this);
        this.schedulerWoken = network.lock.newCondition();
    }

    /** A new simulation whose every choice comes from {@code seed}. */
    public static Simulation create(long seed) {
        return new Simulation(seed);
    }

    public long seed() {
        return seed;
    }

    /** Records every event of the run ({@link #trace()}); off by default. */
    public Simulation tracing(boolean on) {
        this.tracing = on;
        return this;
    }

    /** The events recorded so far, one line each, prefixed with their virtual time. */
    public List<String> trace() {
        network.lock.lock();
        try {
            return List.copyOf(trace);
        } finally {
            network.lock.unlock();
        }
    }

    /** Virtual time since the simulation began. */
    public Duration elapsed() {
        return Duration.ofNanos(now);
    }

    public Faults faults() {
        return faults;
    }

    /** What happened to the datagrams sent so far: delivered, lost, duplicated, dropped (counted, not logged). */
    public DatagramStats datagramStats() {
        return network.datagrams.stats();
    }

    boolean tracing() {
        return tracing;
    }

    /**
     * Adds a host at the next address (10.0.0.1, 10.0.0.2, ...) and starts its loop, which runs
     * {@code program} as its first callback (and again after each {@link SimHost#restart}).
     */
    public SimHost host(String name, Consumer<Loop> program) {
        SimHost h = network.addHost(name, address(nextAddress++));
        h.program = program;
        start(h);
        return h;
    }

    /** Runs {@code action} on the scheduler's thread once virtual time reaches {@code at} (from the start). */
    public void at(Duration at, Runnable action) {
        script.add(new Scripted(at.toNanos(), scriptSequence++, action));
    }

    /**
     * Runs until nothing is left to happen or {@code limit} of virtual time has passed.
     */
    public void run(Duration limit) {
        long until = now + limit.toNanos();
        while (step(until)) {
            // every step is one turn or one move of time
        }
    }

    /**
     * Runs until {@code done} holds (checked between turns, while no loop runs), and fails if it
     * does not within {@code limit} of virtual time, or if nothing is left to happen first.
     */
    public void runUntil(BooleanSupplier done, Duration limit) {
        long until = now + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (!step(until)) {
                throw new AssertionError("simulation (seed " + seed + ") " + (now >= until
                        ? "reached its limit of " + limit + " of virtual time" : "has nothing left to do at "
                        + elapsed()) + " and the condition still does not hold");
            }
        }
    }

    /** One turn for one loop, or one move of time. False when nothing is left before {@code until}. */
    private boolean step(long until) {
        checkFailures();
        Runnable scripted = null;
        network.lock.lock();
        try {
            List<Runner> ready = new ArrayList<>(runners.size());
            for (Runner r : runners) {
                if (r.runnable(now)) {
                    ready.add(r);
                }
            }
            if (!ready.isEmpty()) {
                if (++turnsAtThisInstant > MAX_TURNS_AT_ONE_INSTANT) {
                    throw new IllegalStateException("simulation (seed " + seed + "): " + MAX_TURNS_AT_ONE_INSTANT
                            + " turns at " + elapsed() + " without time moving: a loop never idles");
                }
                Runner r = ready.size() == 1 ? ready.get(0) : ready.get(random.nextInt(ready.size()));
                r.give();
                while (!r.paused && !r.exitedLocked()) {
                    schedulerWoken.awaitUninterruptibly();
                }
                return true;
            }
            long next = network.nextEventAt();
            for (Runner r : runners) {
                if (!r.exitedLocked()) {
                    next = Math.min(next, r.wakeAt);
                }
            }
            Scripted s = script.peek();
            if (s != null) {
                next = Math.min(next, s.at);
            }
            if (next == Long.MAX_VALUE || next > until) {
                if (until != Long.MAX_VALUE && until > now && next > until) {
                    now = until;
                }
                return false;
            }
            if (next > now) {
                now = next;
                turnsAtThisInstant = 0;
            }
            if (s != null && s.at <= now) {
                scripted = script.poll().action;
            } else {
                network.runDue(now);
            }
        } finally {
            network.lock.unlock();
        }
        if (scripted != null) {
            scripted.run(); // outside the lock: a script may stop and start hosts
        }
        return true;
    }

    /** Starts {@code host}'s loop on a thread of its own and waits for its first poll. */
    void start(SimHost host) {
        if (host.runner != null && !host.runner.exited()) {
            throw new IllegalStateException("host " + host.name() + " is running: stop it first");
        }
        Runner r = new Runner(this, host);
        OPENING.set(r);
        Loop loop;
        try {
            loop = Loops.open(LoopOptions.defaults().withBackend(SimBackendProvider.NAME).withClock(r.clock));
        } finally {
            OPENING.remove();
        }
        r.loop = loop;
        host.runner = r;
        Consumer<Loop> program = host.program;
        loop.execute(() -> program.accept(loop));
        Thread t = new Thread(() -> {
            Throwable failed = null;
            try {
                loop.runForever();
            } catch (Throwable e) {
                failed = e;
            }
            try {
                loop.close();
            } catch (Throwable e) {
                failed = failed == null ? e : failed;
            }
            r.exit(failed);
        }, "sim-" + host.name());
        t.setDaemon(true);
        r.thread = t;
        network.lock.lock();
        try {
            runners.add(r);
            t.start();
            r.turn = true; // its first iteration runs until the first poll, alone
            while (!r.paused && !r.exitedLocked()) {
                schedulerWoken.awaitUninterruptibly();
            }
        } finally {
            network.lock.unlock();
        }
        trace("start " + host);
    }

    /** Stops {@code host}: its loop stops at its next turn and closes (its sockets with it). */
    void stop(SimHost host) {
        Runner r = host.runner;
        if (r != null) {
            r.loop.stop();
            trace("stop " + host);
        }
    }

    /** Stops every host and runs until their loops have closed. */
    @Override
    public void close() {
        for (Runner r : runners) {
            if (!r.exited()) {
                r.loop.stop();
            }
        }
        for (int turns = 0; turns < 100_000; turns++) {
            boolean allExited = true;
            for (Runner r : runners) {
                allExited &= r.exited();
            }
            if (allExited || !step(Long.MAX_VALUE)) {
                break;
            }
        }
    }

    SimNetwork network() {
        return network;
    }

    long now() {
        return now;
    }

    SplittableRandom random() {
        return random;
    }

    void signalScheduler() {
        schedulerWoken.signalAll();
    }

    void trace(String what) {
        if (tracing) {
            network.lock.lock();
            try {
                trace.add(String.format("%12.6f ms  %s", now / 1e6, what));
            } finally {
                network.lock.unlock();
            }
        }
    }

    private void checkFailures() {
        for (Runner r : runners) {
            Throwable f = r.failure;
            if (f != null) {
                r.failure = null;
                throw new IllegalStateException("the loop of host " + r.host.name() + " failed (seed " + seed + ")", f);
            }
        }
    }

    private static InetAddress address(int n) {
        try {
            return InetAddress.getByAddress(new byte[] {10, 0, (byte) (n >> 8), (byte) n});
        } catch (UnknownHostException e) {
            throw new AssertionError("a literal address cannot be unknown", e);
        }
    }
}
