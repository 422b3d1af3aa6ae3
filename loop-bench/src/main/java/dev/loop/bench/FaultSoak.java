package dev.loop.bench;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The fault soak, run by hand (not in CI): one loop runs an echo server and a line server for
 * {@code --minutes} while waves of clients on the same loop exchange and check random data, reset,
 * give up on connects, and send garbage and unfinished lines, beside a fixed set of slowloris
 * drippers. Every {@code --report} seconds it prints heap after a full GC, open descriptors and the
 * connections the servers hold; a leak shows as a column that keeps growing.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.vm=ALL-UNNAMED --enable-native-access=ALL-UNNAMED \
 *      -cp loop-bench/target/benchmarks.jar dev.loop.bench.FaultSoak \
 *      [--minutes 10] [--report 60] [--backend select|epoll]
 * </pre>
 * It exits with status 1 if an exchange came back different, if the loop's exception handler was
 * called, or if descriptors are not back to where they were once every client has gone.
 */
public final class FaultSoak {
    private static final InetSocketAddress ANY = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    private static final int WAVE = 100;
    private static final int DRIPPERS = 100;

    private FaultSoak() {
    }

    public static void main(String[] args) throws Exception {
        Duration length = Duration.ofMinutes(Long.parseLong(option(args, "--minutes", "10")));
        Duration every = Duration.ofSeconds(Long.parseLong(option(args, "--report", "60")));
        String backend = option(args, "--backend", "epoll");
        List<String> errors = new ArrayList<>();
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            loop.setExceptionHandler((l, message, error, source) -> errors.add(message + ": " + error));
            Server echo = Net.listen(loop, ANY, c -> c.setHandler((conn, data) -> conn.write(data)));
            Server lines = Net.listen(loop, ANY, c -> loop.spawn(() -> {
                try {
                    for (String line; (line = Async.await(c.readLine(64 * 1024))) != null; ) {
                        c.write((line + "\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
                    }
                } catch (Exception e) {
                    // the line limit, a reset, end of stream: this connection's end
                } finally {
                    c.close();
                }
                return null;
            }));
            long fdsAtStart = fds();
            System.out.printf("fault soak on %s for %d min: waves of %d clients, %d slowloris drippers%n",
                    loop.backendName(), length.toMinutes(), WAVE, DRIPPERS);
            System.out.printf("%8s %8s %10s %10s %6s %8s%n", "seconds", "waves", "exchanges", "heap KiB", "fds", "server");

            List<Connection> drippers = new ArrayList<>();
            for (int i = 0; i < DRIPPERS; i++) {
                drippers.add(loop.runUntilComplete(Net.connect(loop, lines.localAddress())));
            }
            Random rnd = new Random(42);
            long start = System.nanoTime();
            long end = start + length.toNanos();
            long nextReport = start;
            long nextDrip = start;
            long waves = 0;
            long[] exchanges = {0};
            long[] mismatches = {0};
            while (System.nanoTime() < end) {
                if (System.nanoTime() >= nextReport) {
                    report(start, waves, exchanges[0], echo.connections().size() + lines.connections().size());
                    nextReport += every.toNanos();
                }
                if (System.nanoTime() >= nextDrip) {
                    for (Connection d : drippers) {
                        d.write(new byte[] {'s'}); // one byte a second of a line that never ends
                    }
                    nextDrip += TimeUnit.SECONDS.toNanos(1);
                }
                loop.runUntilComplete(wave(loop, echo, lines, rnd, exchanges, mismatches));
                waves++;
            }
            for (Connection d : drippers) {
                d.abort();
            }
            Promise<Void> settle = loop.newPromise();
            Runnable[] check = new Runnable[1];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            check[0] = () -> {
                if ((echo.connections().isEmpty() && lines.connections().isEmpty() && fds() == fdsAtStart)
                        || System.nanoTime() > deadline) {
                    settle.complete(null);
                } else {
                    loop.callLater(Duration.ofMillis(10), check[0]);
                }
            };
            loop.callSoon(check[0]);
            loop.runUntilComplete(settle);
            report(start, waves, exchanges[0], echo.connections().size() + lines.connections().size());
            long fdsAtEnd = fds();
            System.out.printf("descriptors: %d at start, %d at the end; %d exchanges checked, %d different; %d errors reported%n",
                    fdsAtStart, fdsAtEnd, exchanges[0], mismatches[0], errors.size());
            errors.stream().limit(10).forEach(e -> System.out.println("  reported: " + e));
            if (fdsAtEnd != fdsAtStart || mismatches[0] != 0 || !errors.isEmpty()) {
                System.exit(1);
            }
        }
    }

    /** One wave of {@link #WAVE} clients, a quarter each: exchange, reset, given-up connect, garbage to the line server. */
    private static LoopFuture<List<Void>> wave(Loop loop, Server echo, Server lines, Random rnd, long[] exchanges,
                                               long[] mismatches) {
        List<LoopFuture<Void>> done = new ArrayList<>();
        for (int i = 0; i < WAVE; i++) {
            int mode = i % 4;
            if (mode == 2) {
                Net.connect(loop, echo.localAddress()).toCompletableFuture().cancel(false);
                continue;
            }
            byte[] data = new byte[1 + rnd.nextInt(mode == 0 ? 16 * 1024 : 8 * 1024)];
            rnd.nextBytes(data);
            Server to = mode == 3 ? lines : echo;
            done.add(loop.spawn(() -> {
                Connection c = Async.await(Net.connect(loop, to.localAddress()));
                try {
                    c.write(data);
                    if (mode == 0) {
                        ByteBuffer back = Async.await(c.readExactly(data.length));
                        exchanges[0]++;
                        if (!ByteBuffer.wrap(data).equals(back)) {
                            mismatches[0]++;
                        }
                        c.close();
                    } else if (mode == 1) {
                        c.abort();
                    } else {
                        c.close();
                    }
                } catch (Exception e) {
                    c.abort(); // an exchange that failed: counted as a mismatch below unless it was garbage
                    if (mode == 0) {
                        mismatches[0]++;
                    }
                }
                return null;
            }));
        }
        return LoopFuture.all(loop, done);
    }

    private static void report(long start, long waves, long exchanges, int serverConnections) {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
        System.out.printf("%8d %8d %10d %10d %6d %8d%n", TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start), waves,
                exchanges, heap / 1024, fds(), serverConnections);
    }

    /** Descriptors this process has open, from /proc (Linux); -1 elsewhere. */
    private static long fds() {
        try (Stream<Path> s = Files.list(Path.of("/proc/self/fd"))) {
            return s.count() - 1; // the listing's own descriptor
        } catch (IOException e) {
            return -1;
        }
    }

    private static String option(String[] args, String name, String fallback) {
        for (int i = 0; i < args.length - 1; i++) {
            if (args[i].equals(name)) {
                return args[i + 1];
            }
        }
        return fallback;
    }
}
