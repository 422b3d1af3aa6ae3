package dev.loop.engine;

/**
 * Which engine runs on the calling thread: what {@code Async.await} and {@code Async.yieldNow}
 * look up on every call to find their task. Thread-safe: each thread sets only its own binding.
 *
 * <p>The binding is a {@link ThreadLocal}, fronted by a one-entry cache of the binding made last,
 * because a {@code ThreadLocal} lookup (a hash probe of the thread's map) was a measurable part
 * of a task switch (about 5 ns of 140, docs/BENCHMARKS.md). With one loop, or in the loop that
 * started last, the lookup is one read of a field that only changes when a loop starts, stops or
 * closes, and one comparison of the thread; other threads fall through to the {@code ThreadLocal}.
 *
 * <p>Why the cache never answers wrongly: an entry naming thread T is only ever written by T, in
 * {@link #set}, right after T's {@code ThreadLocal} changes, so when T reads an entry naming
 * itself it is T's latest one (other threads only ever overwrite it with their own entries, or
 * with null). An entry naming another thread is ignored.
 */
final class CurrentEngine {
    private static final ThreadLocal<Engine> BOUND = new ThreadLocal<>();
    /** The binding made last by any thread, or null; immutable, so reading it shares no written line. */
    private static volatile Binding last;

    private record Binding(Thread thread, Engine engine) { }

    private CurrentEngine() {
    }

    /** The engine bound to this thread, or null. */
    static Engine get() {
        Binding b = last;
        if (b != null && b.thread == Thread.currentThread()) {
            return b.engine;
        }
        return BOUND.get();
    }

    /** Binds {@code engine} to this thread (null: unbinds it). */
    static void set(Engine engine) {
        Thread me = Thread.currentThread();
        if (engine == null) {
            BOUND.remove();
            Binding b = last;
            if (b != null && b.thread == me) {
                last = null; // may erase another thread's newer entry: that only costs it a miss
            }
        } else {
            BOUND.set(engine);
            last = new Binding(me, engine);
        }
    }
}
