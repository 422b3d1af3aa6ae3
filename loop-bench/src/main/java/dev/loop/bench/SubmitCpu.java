package dev.loop.bench;

import com.sun.management.ThreadMXBean;
import dev.loop.LoopOptions;
import java.lang.management.ManagementFactory;
import java.util.concurrent.Executor;

/**
 * CPU time per callback submitted from other threads, on the loop thread and on the producers,
 * for our loop and Netty's: {@code SubmitCpu ours|netty PRODUCERS SECONDS [backend|transport]}.
 * Each producer submits batches of {@value #BATCH} no-op callbacks, then a signal, and waits for
 * it, as {@link CallSoonForeignBenchmark} does. Throughput on a shared machine follows whoever
 * else runs; the CPU each side spends per callback much less so, which is why this exists. Ours
 * also reports loop iterations per 1,000 callbacks. Two rounds; the first is warm-up.
 */
public final class SubmitCpu {
    static final int BATCH = 10_000;
    private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private SubmitCpu() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: SubmitCpu ours|netty PRODUCERS SECONDS [backend|transport]");
            System.exit(2);
        }
        boolean ours = args[0].equals("ours");
        int producers = Integer.parseInt(args[1]);
        long seconds = Long.parseLong(args[2]);
        String transport = args.length > 3 ? args[3] : ours ? "epoll" : "nio";
        OurLoop our = ours ? new OurLoop(LoopOptions.defaults().withBackend(transport)) : null;
        NettyLoop netty = ours ? null : new NettyLoop(transport);
        Executor loop = ours ? our.loop::callSoon : netty.loop::execute;
        long[] loopThread = new long[1];
        Signal started = new Signal();
        loop.execute(() -> loopThread[0] = Thread.currentThread().threadId());
        loop.execute(started);
        started.await();
        for (int round = 0; round < 2; round++) {
            long iterations = ours ? our.loop.diagnostics().iterations() : 0;
            long loopCpu = MX.getThreadCpuTime(loopThread[0]);
            long[] counts = new long[producers];
            long[] cpu = new long[producers];
            Thread[] threads = new Thread[producers];
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            for (int p = 0; p < producers; p++) {
                int me = p;
                threads[p] = new Thread(() -> {
                    NoOp noOp = new NoOp();
                    Signal done = new Signal();
                    long c0 = MX.getCurrentThreadCpuTime();
                    long n = 0;
                    while (System.nanoTime() < end) {
                        for (int i = 0; i < BATCH; i++) {
                            loop.execute(noOp);
                        }
                        loop.execute(done);
                        done.await();
                        n += BATCH;
                    }
                    counts[me] = n;
                    cpu[me] = MX.getCurrentThreadCpuTime() - c0;
                });
                threads[p].start();
            }
            for (Thread t : threads) {
                t.join();
            }
            long wall = System.nanoTime() - start;
            long total = 0;
            long producerCpu = 0;
            for (int p = 0; p < producers; p++) {
                total += counts[p];
                producerCpu += cpu[p];
            }
            long loopUsed = MX.getThreadCpuTime(loopThread[0]) - loopCpu;
            System.out.printf("%s %s, %d producer(s), round %d: %.1f M callbacks/s; CPU per callback: loop %.1f ns,"
                            + " producers %.1f ns%s%n", args[0], transport, producers, round, total * 1e3 / wall,
                    (double) loopUsed / total, (double) producerCpu / total,
                    !ours ? "" : String.format("; %.1f iterations per 1,000 callbacks",
                            (our.loop.diagnostics().iterations() - iterations) * 1000.0 / total));
        }
        if (ours) {
            our.close();
        } else {
            netty.close();
        }
    }
}
