package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Promise;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Target 4: create a future, add one callback, complete it, and run until the callback ran. One
 * operation is one future; a task on the loop does {@value #BATCH} of them, then signals.
 *
 * <p>Ours: {@link Loop#newPromise()}, {@link LoopFuture#onDone}, {@link Promise#complete}; the
 * callback runs on the loop in its next iteration, as {@link LoopFuture} promises, so the signal
 * is scheduled after the batch and runs after every callback. {@link CompletableFuture}: {@code new},
 * {@code thenAccept} or {@code whenComplete}, {@code complete}; CompletableFuture runs a callback
 * added to a pending future inline in the completing thread (its default when no executor is
 * given), so each callback has run before {@code complete} returns. The CompletableFuture batches
 * run on the same kind of loop thread, so the hand-off and the wait cost both sides the same.
 * {@code thenAcceptAsync(cb, loop)} is the JDK's way to the semantics ours has (the callback runs
 * on the loop, never inside {@code complete}), so it pays the same hop through the loop's queue.
 * Every callback is one preallocated instance.
 *
 * <p>The {@code *Foreign} methods do the same batch on the benchmark thread, not on a loop: a
 * future completed by another thread (an offloaded result, a client library's callback). Ours
 * then hands each callback to the loop through its inbox; {@code thenAccept} still runs it inline
 * on the completing thread, {@code thenAcceptAsync(cb, loop)} hands it to the loop as ours does.
 * Every batch ends with the same signal through the loop, so the wait costs each side the same.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = {BenchFlags.NATIVE_ACCESS, BenchFlags.EXPORT_CONTINUATION,
        BenchFlags.HEAP_MIN, BenchFlags.HEAP_MAX})
public class FutureBenchmark {
    static final int BATCH = 10_000;
    static final Object VALUE = "value";

    /** Counts callbacks so none can be optimised away; loop thread only. */
    static final class Callbacks implements Consumer<Object>, BiConsumer<Object, Throwable> {
        long runs;

        @Override
        public void accept(Object value) {
            runs++;
        }

        @Override
        public void accept(Object value, Throwable error) {
            runs++;
        }
    }

    @State(Scope.Benchmark)
    public static class Ours extends OurLoopState {
        final Callbacks callbacks = new Callbacks();
        final Signal done = new Signal();
        Runnable batch;
        Consumer<LoopFuture<Object>> callback;

        @Override
        protected void prepare(Loop loop) {
            Consumer<LoopFuture<Object>> callback = callbacks::accept;
            this.callback = callback;
            batch = () -> {
                for (int i = 0; i < BATCH; i++) {
                    Promise<Object> p = loop.newPromise();
                    p.onDone(callback);
                    p.complete(VALUE);
                }
                loop.callSoon(done);
            };
        }
    }

    /** CompletableFuture batches, run on one of our loops (epoll) so the harness matches. */
    @State(Scope.Benchmark)
    public static class Jdk {
        OurLoop running;
        final Callbacks callbacks = new Callbacks();
        /** Run inline on the benchmark thread by {@code cfThenAcceptForeign}; that thread only. */
        final Callbacks foreignCallbacks = new Callbacks();
        final Signal done = new Signal();
        Runnable thenAccept;
        Runnable whenComplete;
        Runnable thenAcceptAsync;

        @Setup(Level.Trial)
        public void open() {
            running = new OurLoop(LoopOptions.defaults().withBackend("epoll"));
            Loop loop = running.loop;
            thenAccept = () -> {
                for (int i = 0; i < BATCH; i++) {
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    f.thenAccept(callbacks);
                    f.complete(VALUE);
                }
                loop.callSoon(done);
            };
            whenComplete = () -> {
                for (int i = 0; i < BATCH; i++) {
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    f.whenComplete(callbacks);
                    f.complete(VALUE);
                }
                loop.callSoon(done);
            };
            thenAcceptAsync = () -> {
                for (int i = 0; i < BATCH; i++) {
                    CompletableFuture<Object> f = new CompletableFuture<>();
                    f.thenAcceptAsync(callbacks, loop);
                    f.complete(VALUE);
                }
                loop.callSoon(done);
            };
        }

        @TearDown(Level.Trial)
        public void close() throws InterruptedException {
            running.close();
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void loopPromise(Ours s) {
        s.running.loop.execute(s.batch);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void loopPromiseForeign(Ours s) {
        Loop loop = s.running.loop;
        Consumer<LoopFuture<Object>> callback = s.callback;
        for (int i = 0; i < BATCH; i++) {
            Promise<Object> p = loop.newPromise();
            p.onDone(callback);
            p.complete(VALUE);
        }
        loop.callSoon(s.done);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cfThenAcceptForeign(Jdk s) {
        for (int i = 0; i < BATCH; i++) {
            CompletableFuture<Object> f = new CompletableFuture<>();
            f.thenAccept(s.foreignCallbacks);
            f.complete(VALUE);
        }
        s.running.loop.callSoon(s.done);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cfThenAcceptAsyncForeign(Jdk s) {
        Loop loop = s.running.loop;
        for (int i = 0; i < BATCH; i++) {
            CompletableFuture<Object> f = new CompletableFuture<>();
            f.thenAcceptAsync(s.callbacks, loop);
            f.complete(VALUE);
        }
        loop.callSoon(s.done);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cfThenAccept(Jdk s) {
        s.running.loop.execute(s.thenAccept);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cfThenAcceptAsync(Jdk s) {
        s.running.loop.execute(s.thenAcceptAsync);
        s.done.await();
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void cfWhenComplete(Jdk s) {
        s.running.loop.execute(s.whenComplete);
        s.done.await();
    }
}
