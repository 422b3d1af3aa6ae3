package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The JMH state every "ours" side shares: one of our loops on its own thread, opened with the
 * {@code backend} and {@code timers} parameters for the trial and closed after it. Subclasses
 * prepare their batch in {@link #prepare}.
 */
@State(Scope.Benchmark)
public abstract class OurLoopState {
    @Param({"select", "epoll"})
    public String backend;

    /** The timer strategy: idle in most benchmarks, a parameter so every combination can be run. */
    @Param({"heap"})
    public String timers;

    OurLoop running;

    @Setup(Level.Trial)
    public void open() {
        running = new OurLoop(LoopOptions.defaults().withBackend(backend).withTimers(timers));
        prepare(running.loop);
    }

    /** Builds what the benchmark hands the loop; called once the loop runs. */
    protected void prepare(Loop loop) {
    }

    @TearDown(Level.Trial)
    public void close() throws InterruptedException {
        running.close();
    }
}
