package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;

/**
 * One of our loops running {@link Loop#runForever()} on a thread of its own, the way Netty's event
 * loop owns its thread, so both are driven through the same hand-off from the benchmark thread.
 */
final class OurLoop {
    final Loop loop;
    private final Thread thread;

    OurLoop(LoopOptions options) {
        loop = Loops.open(options);
        if (options.backend() != null && !options.backend().equals(loop.backendName())) {
            throw new IllegalStateException("asked for backend " + options.backend() + ", got " + loop.backendName());
        }
        thread = new Thread(loop::runForever, "loop-" + loop.backendName());
        thread.setDaemon(true);
        thread.start();
    }

    void close() throws InterruptedException {
        loop.stop();
        thread.join();
        loop.close();
    }
}
