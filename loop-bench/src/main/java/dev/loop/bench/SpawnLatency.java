package dev.loop.bench;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Task;
import dev.loop.process.ChildProcess;
import dev.loop.process.ProcessOptions;
import dev.loop.process.Processes;
import java.lang.ProcessBuilder.Redirect;
import java.util.Arrays;
import java.util.List;

/**
 * Spawn-and-exit latency: {@code true} started N times one after another and its exit awaited,
 * through {@link Processes#exec} on a loop and through the JDK's {@link ProcessBuilder} alone,
 * each with its three standard streams piped (input ended, both outputs read to their end, as
 * asyncio's {@code communicate()}) and inherited; rounds alternate the contenders so a
 * busy moment falls on all of them. The peer is {@code src/main/python/spawn_bench.py} (asyncio).
 *
 * <pre>
 * java --enable-native-access=ALL-UNNAMED -cp loop-bench/target/benchmarks.jar dev.loop.bench.SpawnLatency \
 *      [--n 200] [--rounds 3] [--backend epoll] [--only jdk-pipes|jdk-inherited|loop-pipes|loop-inherited]
 * </pre>
 */
public final class SpawnLatency {
    private static final List<String> TRUE = List.of("true");

    private SpawnLatency() {
    }

    public static void main(String[] args) throws Exception {
        int n = Integer.parseInt(option(args, "--n", "200"));
        int rounds = Integer.parseInt(option(args, "--rounds", "3"));
        String backend = option(args, "--backend", null);
        String only = option(args, "--only", ""); // jdk-pipes, jdk-inherited, loop-pipes, loop-inherited: one contender, for strace
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            ProcessOptions piped = ProcessOptions.defaults();
            ProcessOptions inherited = ProcessOptions.defaults().withStdin(Redirect.INHERIT)
                    .withStdout(Redirect.INHERIT).withStderr(Redirect.INHERIT);
            if (only.isEmpty()) {
                ourLoop(loop, 20, piped); // warm-up: the spawn helper, the JIT
                jdk(20, true);
            }
            for (int r = 0; r < rounds; r++) {
                if (only.isEmpty() || only.equals("jdk-pipes")) {
                    print(r, "ProcessBuilder alone, 3 pipes", jdk(n, true));
                }
                if (only.isEmpty() || only.equals("jdk-inherited")) {
                    print(r, "ProcessBuilder alone, inherited", jdk(n, false));
                }
                if (only.isEmpty() || only.equals("loop-pipes")) {
                    print(r, "Processes.exec (" + loop.backendName() + "), 3 pipes", ourLoop(loop, n, piped));
                }
                if (only.isEmpty() || only.equals("loop-inherited")) {
                    print(r, "Processes.exec (" + loop.backendName() + "), inherited", ourLoop(loop, n, inherited));
                }
            }
        }
    }

    private static long[] jdk(int n, boolean pipes) throws Exception {
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long t0 = System.nanoTime();
            ProcessBuilder pb = new ProcessBuilder(TRUE);
            if (!pipes) {
                pb.inheritIO();
            }
            Process p = pb.start();
            if (pipes) { // as asyncio's communicate(): end the input, read both outputs to their end
                p.getOutputStream().close();
                p.getInputStream().readAllBytes();
                p.getErrorStream().readAllBytes();
            }
            p.waitFor();
            t[i] = System.nanoTime() - t0;
        }
        return t;
    }

    private static long[] ourLoop(Loop loop, int n, ProcessOptions options) {
        long[] t = new long[n];
        Task<Void> task = loop.spawn(() -> {
            for (int i = 0; i < n; i++) {
                long t0 = System.nanoTime();
                ChildProcess p = Processes.exec(loop, TRUE, options);
                if (p.stdout() != null) { // as asyncio's communicate(): end the input, read both outputs to their end
                    p.stdin().shutdownOutput();
                    while (Async.await(p.stdout().readLine(1024)) != null) {
                        // true prints nothing
                    }
                    while (Async.await(p.stderr().readLine(1024)) != null) {
                        // nor here
                    }
                }
                Async.await(p.exitCode());
                p.close();
                t[i] = System.nanoTime() - t0;
            }
            return null;
        });
        loop.runUntilComplete(task);
        return t;
    }

    private static void print(int round, String name, long[] t) {
        Arrays.sort(t);
        System.out.printf("round %d %-48s median %8.0f us  p99 %8.0f us%n", round, name,
                t[t.length / 2] / 1000.0, t[t.length * 99 / 100] / 1000.0);
    }

    private static String option(String[] args, String flag, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(flag)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}
