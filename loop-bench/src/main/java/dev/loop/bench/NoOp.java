package dev.loop.bench;

/**
 * The callback every executor under test runs: preallocated, so the allocation JMH's GC profiler
 * reports per operation is the executor's own. It counts in a plain field, which only the loop
 * thread touches, so the call cannot be optimised away.
 */
final class NoOp implements Runnable {
    long runs;

    @Override
    public void run() {
        runs++;
    }
}
