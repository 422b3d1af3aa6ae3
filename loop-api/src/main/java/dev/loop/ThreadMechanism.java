package dev.loop;

import java.util.concurrent.locks.LockSupport;

/**
 * The fallback without JVM flags: each task runs on its own virtual thread, and a baton makes the
 * loop thread and the task take strict turns, so exactly one of them runs at any moment and task
 * code still sees a single-threaded loop. While a task holds the baton the loop lends it its
 * identity ({@link DefaultLoop#lendTo}): {@link Loop#inLoop()} is true and callbacks it schedules go
 * straight to the ready queue, as with continuations.
 *
 * <p>A switch costs two unparks (about a microsecond against a continuation's tenth), which is the
 * price of needing no {@code --add-exports}.
 *
 * <p>Not thread-safe beyond the baton protocol below.
 */
final class ThreadMechanism extends TaskMechanism {
    /** Spins before parking while waiting for the baton: a short task hands it back within this. */
    static final int SPINS = 200;

    /** The baton and the two threads that pass it. */
    static final class Baton {
        static final int LOOP = 0;
        static final int TASK = 1;

        volatile int holder = LOOP;
        Thread task;
        volatile Thread loopThread;
    }

    @Override
    String name() {
        return THREADS;
    }

    @Override
    void start(LoopTask<?> task) {
        Baton b = new Baton();
        DefaultLoop loop = task.eventLoop();
        Runnable body = task.bodyRunner();
        b.task = Thread.ofVirtual().name("loop-task-" + task.id()).unstarted(() -> {
            dev.loop.engine.Engine.bindCurrent(loop);
            try {
                body.run();
            } finally {
                dev.loop.engine.Engine.bindCurrent(null);
                b.holder = Baton.LOOP;
                LockSupport.unpark(b.loopThread);
            }
        });
        task.strand(b);
    }

    @Override
    void resume(LoopTask<?> task) {
        Baton b = (Baton) task.strand();
        DefaultLoop loop = task.eventLoop();
        Thread me = Thread.currentThread();
        b.loopThread = me;
        loop.lendTo(b.task);
        b.holder = Baton.TASK;
        // An interrupt of the loop thread is for the loop (it stops it: see Loop.runForever), not
        // a handoff; left set it would make every park below return at once, and the wait for a
        // long task slice would spin. Put aside for the wait and restored after.
        boolean interrupted = Thread.interrupted();
        try {
            if (b.task.getState() == Thread.State.NEW) {
                b.task.start();
            } else {
                LockSupport.unpark(b.task);
            }
            int spins = SPINS;
            while (b.holder == Baton.TASK) {
                if (spins > 0) {
                    spins--;
                    Thread.onSpinWait();
                } else {
                    LockSupport.park(this);
                    interrupted |= Thread.interrupted();
                }
            }
        } finally {
            loop.lendTo(me);
            if (interrupted) {
                me.interrupt();
            }
        }
    }

    @Override
    void suspend(LoopTask<?> task) {
        Baton b = (Baton) task.strand();
        b.holder = Baton.LOOP;
        LockSupport.unpark(b.loopThread);
        // The same for the task's own thread: an interrupt it carries is kept for the task's code,
        // but must not turn the wait for its next turn into a spin.
        boolean interrupted = false;
        while (b.holder != Baton.TASK) {
            LockSupport.park(this);
            interrupted |= Thread.interrupted();
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    void finished(LoopTask<?> task) {
        task.strand(null);
    }
}
