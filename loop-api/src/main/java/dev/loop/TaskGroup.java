package dev.loop;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.Consumer;

/**
 * Tasks that live and die together, in the idiom of the JDK's {@code StructuredTaskScope}:
 *
 * <pre>{@code
 * try (var g = TaskGroup.open()) {
 *     Task<User> user = g.spawn(() -> fetchUser(id));
 *     Task<List<Order>> orders = g.spawn(() -> fetchOrders(id));
 *     g.join();
 *     return new Page(user.result(), orders.result());
 * }
 * }</pre>
 *
 * <p>{@link #join()} waits for every child, including children spawned while it waits. The first
 * failure cancels the other children, and join throws one {@link TaskGroupException} holding every
 * failure. Leaving the block without joining (the body threw) cancels the children and waits for
 * them to end, so no child outlives the block. {@link #run} is the one-call form with asyncio's
 * {@code TaskGroup} semantics, where a child's failure also interrupts the body.
 *
 * <p>Not thread-safe: opened, used and closed by one task.
 */
public final class TaskGroup implements AutoCloseable {
    /** The body of {@link #run}: spawns children into the group it is given. */
    @FunctionalInterface
    public interface Body<T> {
        T run(TaskGroup group) throws Exception;
    }

    private final LoopTask<?> parent;
    private final DefaultLoop loop;
    private final int cancellingAtEntry;
    private final Set<Task<?>> live = Collections.newSetFromMap(new IdentityHashMap<>());
    private final List<Throwable> failures = new ArrayList<>();
    private final Consumer<LoopFuture<?>> onChildDone = this::childDone;
    private Promise<Void> waiter;
    private boolean aborting;
    private boolean finished;
    // run() only: a child failure cancels the body, and the group withdraws that cancel afterwards.
    private boolean inBody;
    private boolean parentCancelRequested;
    private int parentCancelToken;

    private TaskGroup(LoopTask<?> parent) {
        this.parent = parent;
        this.loop = parent.eventLoop();
        this.cancellingAtEntry = parent.cancelling();
    }

    /**
     * Opens a group owned by the current task.
     *
     * @throws IllegalStateException outside a task
     */
    public static TaskGroup open() {
        LoopTask<?> t = LoopTask.current();
        if (t == null) {
            throw new IllegalStateException("TaskGroup.open() called outside a task: a group waits for its children "
                    + "by suspending its owner, so open it in code started with Loop.spawn or Loop.run");
        }
        return new TaskGroup(t);
    }

    /**
     * asyncio's {@code async with TaskGroup()}: runs {@code body}, then waits for every child. A
     * child's failure cancels the other children and the body itself (at its current suspension
     * point); then every failure, the body's own included, comes out as one
     * {@link TaskGroupException}. A cancellation of the owning task from outside cancels the
     * children and comes out as a {@link CancellationException} once they have ended.
     */
    public static <T> T run(Body<T> body) {
        Objects.requireNonNull(body, "body");
        TaskGroup g = open();
        T value = null;
        Throwable bodyError = null;
        g.inBody = true;
        try {
            value = body.run(g);
        } catch (Throwable e) {
            bodyError = e;
        }
        g.inBody = false;
        // The cancellation to pass on, as the task got it: its name and the canceller's reason.
        CancellationException cancel = bodyError instanceof CancellationException c ? c : null;
        if (g.parentCancelRequested && g.parent.withdrawCancel(g.parentCancelToken) <= g.cancellingAtEntry) {
            // the only pending cancel was the one we sent because a child failed: not a real cancel
            cancel = null;
        }
        if (bodyError != null && !g.aborting) {
            g.abort();
        }
        CancellationException whileWaiting = g.awaitChildren();
        if (cancel == null) {
            cancel = whileWaiting;
        }
        g.finished = true;
        List<Throwable> errors = g.failures;
        if (bodyError != null && !(bodyError instanceof CancellationException)) {
            errors.add(bodyError);
        }
        if (!errors.isEmpty()) {
            if (cancel != null) {
                g.parent.redeliverCancel(); // reported as failures now, but the cancel is not lost
            }
            throw new TaskGroupException(errors);
        }
        if (cancel != null) {
            throw cancel;
        }
        return value;
    }

    /**
     * Starts {@code body} as a child of this group.
     *
     * @throws IllegalStateException if the group has been joined or closed, or is cancelling its
     *                               children after a failure
     */
    public <T> Task<T> spawn(TaskBody<T> body) {
        Objects.requireNonNull(body, "body");
        if (finished) {
            throw new IllegalStateException("spawn() into a task group that has finished (joined or closed): "
                    + "open a new group");
        }
        if (aborting) {
            throw new IllegalStateException("spawn() into a task group that is shutting down after a failure "
                    + "or a cancellation");
        }
        Task<T> child = loop.spawn(body);
        live.add(child);
        child.onDone(onChildDone);
        return child;
    }

    /**
     * Waits for every child, including those spawned meanwhile; then the group is finished.
     *
     * @throws TaskGroupException    if any child failed (the rest were cancelled at the first failure)
     * @throws CancellationException if the owning task was cancelled while waiting; the children
     *                               were cancelled and have ended
     * @throws IllegalStateException if called by another task than the owner, or twice
     */
    public void join() {
        checkOwner("join");
        if (finished) {
            throw new IllegalStateException("join() on a task group that has already finished");
        }
        CancellationException cancelled;
        try {
            cancelled = awaitChildren();
        } finally {
            finished = true;
        }
        if (cancelled != null) {
            // Rethrown as the task got it (its name and the canceller's reason), not replaced.
            failures.forEach(cancelled::addSuppressed);
            throw cancelled;
        }
        if (!failures.isEmpty()) {
            throw new TaskGroupException(failures);
        }
    }

    /**
     * Ends the group: after {@link #join()} it does nothing; otherwise (the body threw) it cancels
     * the children and waits for them to end. A cancellation of the owner arriving during that
     * wait is delivered again at its next suspension point rather than lost.
     *
     * @throws TaskGroupException if a child failed, before or while being cancelled: in a
     *                            try-with-resources block, Java adds it to the body's exception as
     *                            suppressed, so no child's failure is lost
     */
    @Override
    public void close() {
        if (finished) {
            return;
        }
        checkOwner("close");
        CancellationException cancelled = null;
        try {
            if (!live.isEmpty()) {
                abort();
                cancelled = awaitChildren();
            }
        } finally {
            finished = true;
        }
        if (cancelled != null) {
            parent.redeliverCancel();
        }
        if (!failures.isEmpty()) {
            throw new TaskGroupException(failures);
        }
    }

    /** True once joined or closed: no more children can be spawned. */
    public boolean isFinished() {
        return finished;
    }

    private void checkOwner(String what) {
        if (LoopTask.current() != parent) {
            throw new IllegalStateException(what + "() on a task group owned by " + parent.name()
                    + " called from " + (LoopTask.current() == null ? "outside any task" : LoopTask.current().name()));
        }
    }

    /**
     * Waits until no child is left; a cancellation meanwhile cancels the children. Returns the
     * first cancellation the owner got while waiting (it carries the cancel's reason), or null.
     */
    private CancellationException awaitChildren() {
        CancellationException cancelled = null;
        while (!live.isEmpty()) {
            Promise<Void> w = loop.newPromise();
            waiter = w;
            try {
                parent.await(w);
            } catch (CancellationException e) {
                if (cancelled == null) {
                    cancelled = e;
                }
                if (!aborting) {
                    abort();
                }
            }
        }
        return cancelled;
    }

    private void abort() {
        aborting = true;
        for (Task<?> c : new ArrayList<>(live)) {
            c.cancel();
        }
    }

    private void childDone(LoopFuture<?> f) {
        live.remove(f);
        if (!f.isCancelled() && !f.isSuccess()) {
            failures.add(f.exception());
            if (!aborting) {
                abort();
            }
            if (inBody && !parentCancelRequested) {
                parentCancelRequested = true;
                parentCancelToken = parent.requestCancel();
            }
        }
        if (live.isEmpty() && waiter != null) {
            Promise<Void> w = waiter;
            waiter = null;
            w.tryComplete(null);
        }
    }
}
