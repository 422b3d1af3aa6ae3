package dev.loop.bench;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;

/**
 * Heap per suspended task: spawns N tasks (default 1,000,000) that each await a promise nobody
 * completes, then reports the heap in use after a full GC. Run it with the heap the target names:
 *
 * <pre>
 * java -Xmx1g --add-exports java.base/jdk.internal.vm=ALL-UNNAMED -cp loop-bench/target/benchmarks.jar \
 *      dev.loop.bench.TaskMemory 1000000
 * </pre>
 * It exits with status 1 (and says so) if the tasks do not all suspend within that heap.
 */
public final class TaskMemory {
    private TaskMemory() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        try (Loop loop = Loops.open(LoopOptions.defaults())) {
            System.gc();
            long before = memory.getHeapMemoryUsage().getUsed();
            int[] suspended = {0};
            Promise<Void> never = loop.newPromise();
            Promise<Void> allSuspended = loop.newPromise();
            loop.callSoon(() -> {
                for (int i = 0; i < n; i++) {
                    loop.spawn(() -> {
                        Promise<Void> mine = loop.newPromise(); // one never-completed future per task
                        if (++suspended[0] == n) {
                            allSuspended.complete(null);
                        }
                        Async.await(mine);
                        return Async.await(never);
                    });
                }
            });
            try {
                loop.runUntilComplete(allSuspended);
                loop.callSoon(loop::stop);
                loop.runForever(); // let the last task reach its await
            } catch (OutOfMemoryError e) {
                System.out.println("FAILED: out of memory after " + suspended[0] + " of " + n + " tasks (max heap "
                        + Runtime.getRuntime().maxMemory() / (1 << 20) + " MiB)");
                System.exit(1);
            }
            System.gc();
            long after = memory.getHeapMemoryUsage().getUsed();
            System.out.printf("%d tasks suspended; heap in use %.1f MiB (max %d MiB); %.0f bytes per suspended task%n",
                    n, after / 1048576.0, Runtime.getRuntime().maxMemory() / (1 << 20), (after - before) / (double) n);
            never.cancel(); // close() would cancel them anyway; this makes the shutdown quick
        }
    }
}
