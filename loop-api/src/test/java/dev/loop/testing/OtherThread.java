package dev.loop.testing;

/** Work done by a thread other than the test's (or the loop's), waited for. */
public final class OtherThread {
    private OtherThread() {
    }

    /** Runs {@code r} on a new thread and waits for it: what it did happens-before what follows. */
    public static void run(Runnable r) {
        Thread t = new Thread(r);
        t.start();
        try {
            t.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while another thread ran", e);
        }
    }
}
