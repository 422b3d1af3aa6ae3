package dev.loop;

import dev.loop.engine.Engine;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.Cleaner;
import java.util.Arrays;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The engine's {@link Promise}. One word, {@code state}, holds the callbacks while the future is
 * pending and the result once it is done, so completing is one CAS (which also takes the callbacks
 * registered by then) and adding a callback is one CAS; the callbacks taken are handed to the loop
 * in one {@link Loop#callSoon} of the promise itself, so create + one callback + complete allocates
 * nothing but the promise (and the callback the caller wrote). Internal {@link Relay}s are the
 * exception: they run on the completing thread.
 *
 * <p>Every {@link LoopFuture} is one ({@link LoopTask} is the only subclass): see {@link #of}.
 */
sealed class DefaultPromise<T> implements Promise<T>, Runnable permits LoopTask {
    private static final Object NULL = new Object();
    /** The result of a future cancelled without a reason; one with a reason gets its own. */
    private static final Cancelled CANCELLED = new Cancelled(null);
    private static final VarHandle STATE;
    private static final Cleaner CLEANER = Cleaner.create();

    static {
        try {
            STATE = MethodHandles.lookup().findVarHandle(DefaultPromise.class, "state", Object.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Loop loop;
    /**
     * Pending: null (no callback), one {@link Consumer}, or an {@code Object[]} of them in
     * registration order. Done: {@link #NULL}, a {@link Failure}, a {@link Cancelled}, a
     * {@link Boxed} value, or the value itself. A value that could pass for callbacks (a
     * {@code Consumer}, an {@code Object[]}) is boxed, so "pending" is a type test.
     */
    private volatile Object state;
    /** The callbacks handed to the loop at completion; loop thread only once published. */
    private Object toRun;

    DefaultPromise(Loop loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
    }

    /**
     * {@code f} as what it always is, a promise of the loop: {@link LoopFuture} is sealed and its
     * only implementations are this class and its subclass, so the switch is exhaustive without a
     * default, and a new kind of future would fail to compile here rather than at run time.
     */
    static <T> DefaultPromise<T> of(LoopFuture<T> f) {
        return switch (f) {
            case Promise<T> p -> switch (p) {
                case DefaultPromise<T> d -> d;
            };
            case Task<T> t -> switch (t) {
                case LoopTask<T> task -> task;
            };
        };
    }

    /** A failure; in debug mode with the tracker that reports it if nobody ever reads it. */
    private record Failure(Throwable error, Unretrieved tracker) { }

    private record Cancelled(String reason) { }

    /** A value that would otherwise look like pending callbacks. */
    private record Boxed(Object value) { }

    private static boolean pending(Object s) {
        return s == null || s instanceof Consumer<?> || s instanceof Object[];
    }

    /** The value {@code s} (a done state that is neither a failure nor a cancellation) stands for. */
    private static Object unbox(Object s) {
        return s == NULL ? null : s instanceof Boxed b ? b.value() : s;
    }

    @Override
    public final Loop loop() {
        return loop;
    }

    // ------------------------------------------------------------------ completion (any thread)

    @Override
    public void complete(T value) {
        if (!tryComplete(value)) {
            throw alreadyDone("complete");
        }
    }

    @Override
    public void fail(Throwable error) {
        if (!tryFail(error)) {
            throw alreadyDone("fail");
        }
    }

    @Override
    public boolean tryComplete(T value) {
        return settle(value == null ? NULL : value instanceof Consumer<?> || value instanceof Object[] ? new Boxed(value) : value);
    }

    @Override
    public boolean tryFail(Throwable error) {
        Objects.requireNonNull(error, "error");
        if (error instanceof CancellationException c) {
            return cancel(c.getMessage());
        }
        // In debug mode the failure carries its tracker, so a reader on another thread can never
        // look at the failure without being counted.
        Unretrieved u = loop.isDebug()
                ? new Unretrieved(loop, error, getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this)))
                : null;
        if (!settle(new Failure(error, u))) {
            return false;
        }
        if (u != null) {
            CLEANER.register(this, u);
        }
        return true;
    }

    @Override
    public boolean cancel() {
        return settle(CANCELLED);
    }

    @Override
    public boolean cancel(String reason) {
        return settle(reason == null ? CANCELLED : new Cancelled(reason));
    }

    /** Subclasses (tasks) complete through this; returns false if already done. */
    protected final boolean settle(Object encoded) {
        for (;;) {
            Object s = state;
            if (!pending(s)) {
                return false;
            }
            if (STATE.compareAndSet(this, s, encoded)) {
                if (s != null) {
                    dispatch(s);
                }
                return true;
            }
        }
    }

    /** Hands the callbacks the completing CAS took to where they run: relays here, the rest to the loop. */
    private void dispatch(Object c) {
        if (c instanceof Relay<?>) {
            relay(c);
            return;
        }
        if (c instanceof Object[] arr) {
            c = relayFrom(arr);
            if (c == null) {
                return;
            }
        }
        toRun = c;
        try {
            loop.callSoon(this);
        } catch (RejectedExecutionException closed) {
            // Completed after its loop closed: the completion stands (readers and relays see it),
            // but no loop is left to run the callbacks. Not the completer's fault.
            toRun = null;
            notRun(c);
        }
    }

    private void notRun(Object callbacks) {
        try {
            System.Logger log = System.getLogger("dev.loop");
            if (log.isLoggable(System.Logger.Level.WARNING)) {
                int n = callbacks instanceof Object[] arr ? arr.length : 1;
                log.log(System.Logger.Level.WARNING, Engine.of(loop).logContext(this).line(n + " callback(s) of " + this
                        + " not run: its loop closed before the future completed"));
            }
        } catch (Throwable loggingFailed) {
            // the completion itself succeeded; nothing more can be done about the callbacks
        }
    }

    /** Runs the relays among {@code arr} here and returns what is left for the loop (or null). */
    private Object relayFrom(Object[] arr) {
        int relays = 0;
        for (Object cb : arr) {
            if (cb instanceof Relay<?>) {
                relay(cb);
                relays++;
            }
        }
        if (relays == 0) {
            return arr;
        }
        if (relays == arr.length) {
            return null;
        }
        Object[] rest = new Object[arr.length - relays];
        int i = 0;
        for (Object cb : arr) {
            if (!(cb instanceof Relay<?>)) {
                rest[i++] = cb;
            }
        }
        return rest.length == 1 ? rest[0] : rest;
    }

    /**
     * A done-callback that runs on the thread completing the future (or at once, if it is already
     * done), not on the future's loop. Only for thread-safe forwarding to another loop
     * ({@link Async#marshal}): a callback left to the loop runs only if that loop runs again, and
     * a loop whose {@code runUntilComplete} already returned may never do so.
     */
    @FunctionalInterface
    interface Relay<T> extends Consumer<LoopFuture<T>> {
    }

    /** Registers {@code relay}: it runs where this future completes, never later than that. */
    final void relayTo(Relay<T> relay) {
        onDone(relay);
    }

    private void relay(Object r) {
        try {
            invokeNow(r);
        } catch (Throwable t) {
            loop.callExceptionHandler("exception in a relay of " + this, t, r);
        }
    }

    @SuppressWarnings("unchecked")
    private void invokeNow(Object r) {
        ((Relay<T>) r).accept(this);
    }

    private IllegalStateException alreadyDone(String op) {
        return new IllegalStateException(op + "() on a future that is already " + state() + ": " + this);
    }

    // ------------------------------------------------------------------ callbacks

    @Override
    public LoopFuture<T> onDone(Consumer<? super LoopFuture<T>> callback) {
        Objects.requireNonNull(callback, "callback");
        for (;;) {
            Object s = state;
            Object next;
            if (s == null) {
                next = callback;
            } else if (s instanceof Object[] arr) {
                Object[] grown = Arrays.copyOf(arr, arr.length + 1);
                grown[arr.length] = callback;
                next = grown;
            } else if (s instanceof Consumer<?>) {
                next = new Object[] {s, callback};
            } else {
                if ((Object) callback instanceof Relay<?>) {
                    relay(callback);
                } else {
                    loop.callSoon(new LateCallback<>(this, callback));
                }
                return this;
            }
            if (STATE.compareAndSet(this, s, next)) {
                return this;
            }
        }
    }

    @Override
    public boolean removeCallback(Consumer<? super LoopFuture<T>> callback) {
        for (;;) {
            Object s = state;
            if (!pending(s)) {
                return removeFromDispatched(callback);
            }
            Object next;
            if (s == callback) {
                next = null;
            } else if (s instanceof Object[] arr) {
                Object[] kept = Arrays.stream(arr).filter(o -> o != callback).toArray();
                if (kept.length == arr.length) {
                    return false;
                }
                next = kept.length == 0 ? null : kept.length == 1 ? kept[0] : kept;
            } else {
                return false;
            }
            if (STATE.compareAndSet(this, s, next)) {
                return true;
            }
        }
    }

    /** Already handed to the loop: it can still be withdrawn on the loop thread until it runs. */
    private boolean removeFromDispatched(Object callback) {
        if (!loop.inLoop()) {
            return false;
        }
        Object r = toRun;
        if (r == callback) {
            toRun = null;
            return true;
        }
        boolean removed = false;
        if (r instanceof Object[] arr) {
            for (int i = 0; i < arr.length; i++) {
                if (arr[i] == callback) {
                    arr[i] = null;
                    removed = true;
                }
            }
        }
        return removed;
    }

    /** Runs the callbacks handed over at completion, in order; one failing does not stop the rest. */
    @Override
    public final void run() {
        Object r = toRun;
        if (r instanceof Object[] arr) {
            for (int i = 0; i < arr.length; i++) {
                Object cb = arr[i];
                if (cb != null) {
                    arr[i] = null;
                    invoke(cb);
                }
            }
        } else if (r != null) {
            invoke(r);
        }
        toRun = null;
    }

    @SuppressWarnings("unchecked")
    private void invoke(Object cb) {
        try {
            ((Consumer<? super LoopFuture<T>>) cb).accept(this);
        } catch (Throwable t) {
            loop.callExceptionHandler("exception in a done-callback of " + this, t, cb);
        }
    }

    private record LateCallback<T>(DefaultPromise<T> future, Consumer<? super LoopFuture<T>> callback)
            implements Runnable {
        @Override
        public void run() {
            callback.accept(future);
        }
    }

    // ------------------------------------------------------------------ reading

    @Override
    public final boolean isDone() {
        return !pending(state);
    }

    @Override
    public final boolean isCancelled() {
        return state instanceof Cancelled;
    }

    @Override
    public final boolean isSuccess() {
        Object s = state;
        return !pending(s) && !(s instanceof Cancelled) && !(s instanceof Failure);
    }

    @Override
    @SuppressWarnings("unchecked")
    public final T result() {
        Object s = state;
        if (pending(s)) {
            throw new IllegalStateException("result() on a pending future: " + this);
        }
        if (s instanceof Cancelled c) {
            throw cancellation(c.reason());
        }
        if (s instanceof Failure f) {
            markRetrieved(f);
            throw Sneaky.<RuntimeException>rethrow(f.error());
        }
        return (T) unbox(s);
    }

    @Override
    public final Throwable exception() {
        Object s = state;
        if (pending(s)) {
            throw new IllegalStateException("exception() on a pending future: " + this);
        }
        if (s instanceof Cancelled c) {
            throw cancellation(c.reason());
        }
        if (s instanceof Failure f) {
            markRetrieved(f);
            return f.error();
        }
        return null;
    }

    private void markRetrieved(Failure f) {
        Unretrieved u = f.tracker();
        if (u != null) {
            u.retrieved = true;
        }
        onRetrieved();
    }

    /** Called whenever the failure is read; tasks use it to stop tracking an unretrieved failure. */
    protected void onRetrieved() {
    }

    /** The exception for a cancelled future: its label, and the reason given to cancel if any. */
    protected final CancellationException cancellation(String reason) {
        return new CancellationException(label() + " was cancelled" + (reason == null ? "" : ": " + reason));
    }

    @Override
    public final String cancelReason() {
        return state instanceof Cancelled c ? c.reason() : null;
    }

    /**
     * "pending", "done with value X", "failed with E", or "cancelled[: reason]". Never throws: a
     * value or exception whose toString() fails is described without it.
     */
    protected final String state() {
        Object s = state;
        if (pending(s)) {
            return "pending";
        }
        if (s instanceof Cancelled c) {
            return c.reason() == null ? "cancelled" : "cancelled: " + c.reason();
        }
        try {
            if (s instanceof Failure f) {
                return "failed with " + f.error();
            }
            Object v = unbox(s);
            return "done with value " + (v == null ? "null" : v);
        } catch (RuntimeException toStringFailed) {
            return (s instanceof Failure ? "failed" : "done with a value") + " (whose toString() threw "
                    + toStringFailed.getClass().getName() + ")";
        }
    }

    /** How messages name this future: {@code DefaultPromise@1b6d3586}; a task by its name. */
    protected String label() {
        return getClass().getSimpleName() + "@" + Integer.toHexString(System.identityHashCode(this));
    }

    @Override
    public String toString() {
        return label() + "[" + state() + "]";
    }

    /** Reports, when the future is collected, a failure nobody looked at (asyncio's "never retrieved"). */
    private static final class Unretrieved implements Runnable {
        private final Loop loop;
        private final Throwable error;
        private final String future;
        volatile boolean retrieved;

        Unretrieved(Loop loop, Throwable error, String future) {
            this.loop = loop;
            this.error = error;
            this.future = future;
        }

        @Override
        public void run() {
            if (retrieved) {
                return;
            }
            String msg = "future exception was never retrieved: " + future;
            try {
                loop.callSoon(() -> loop.callExceptionHandler(msg, error, null));
            } catch (RuntimeException loopClosed) {
                System.Logger log = System.getLogger("dev.loop");
                if (log.isLoggable(System.Logger.Level.ERROR)) {
                    log.log(System.Logger.Level.ERROR, Engine.of(loop).logContext(null).line(msg), error);
                }
            }
        }
    }
}
