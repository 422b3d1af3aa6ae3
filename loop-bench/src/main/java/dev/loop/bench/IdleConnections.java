package dev.loop.bench;

import dev.loop.Async;
import dev.loop.net.Connection;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.Promise;
import dev.loop.net.Server;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Memory per idle connection: one loop holds N connections (default 10,000) that a second process
 * opens and keeps open, and the server reports heap (after GC) and RSS growth per connection.
 *
 * <pre>
 * java --add-exports java.base/jdk.internal.vm=ALL-UNNAMED --enable-native-access=ALL-UNNAMED \
 *      -cp loop-bench/target/benchmarks.jar dev.loop.bench.IdleConnections \
 *      [--connections N] [--backend select|epoll] [--style callback|task|line]
 * </pre>
 * {@code callback}: each connection only has a push-style handler (asyncio's Protocol).
 * {@code task}: each connection has a task suspended in {@code read} (asyncio's streams).
 * {@code line}: each connection has a task suspended in {@code readLine} (limit
 * {@value #LINE_LIMIT} bytes) and the client has sent it one byte of a line it never finishes:
 * what a connection holding a partial line costs.
 * The clients run in their own process because the open-file limit is per process: server and
 * clients together need two descriptors per connection.
 */
public final class IdleConnections {
    private static final Duration SETTLE = Duration.ofSeconds(1);
    static final int LINE_LIMIT = 64 * 1024;

    private IdleConnections() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length > 0 && args[0].equals("--client")) {
            client(Integer.parseInt(args[1]), Integer.parseInt(args[2]), args.length > 3 && args[3].equals("partial-line"));
            return;
        }
        int n = Integer.parseInt(option(args, "--connections", "10000"));
        String backend = option(args, "--backend", null);
        String style = option(args, "--style", "callback");
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            List<Connection> held = new ArrayList<>(n);
            Promise<Void> allIn = loop.newPromise();
            Server server = Net.listen(loop, new InetSocketAddress("127.0.0.1", 0), conn -> {
                held.add(conn);
                if (style.equals("task")) {
                    loop.spawn(() -> Async.await(conn.read(ByteBuffer.allocate(64))));
                } else if (style.equals("line")) {
                    loop.spawn(() -> Async.await(conn.readLine(LINE_LIMIT)));
                } else {
                    conn.setHandler((c, data) -> { });
                }
                if (held.size() == n) {
                    allIn.tryComplete(null);
                }
            });
            int port = server.localAddress().getPort();
            // Warm up what the first connections touch (classes, buffers), then measure from here.
            warmUp(loop, port);
            held.clear();
            gc();
            long heapBefore = heapUsed();
            long rssBefore = rss();
            Process clients = new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                    System.getProperty("java.class.path"), IdleConnections.class.getName(), "--client",
                    Integer.toString(port), Integer.toString(n), style.equals("line") ? "partial-line" : "idle")
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            long start = System.nanoTime();
            loop.runUntilComplete(allIn);
            long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            // (line style: the byte each client sent before it connected the next is read by now,
            // or within the settling second below)
            Promise<Void> settle = loop.newPromise();
            loop.callLater(SETTLE, () -> settle.complete(null));
            loop.runUntilComplete(settle);
            gc();
            long heap = heapUsed() - heapBefore;
            long rss = rss() - rssBefore;
            System.out.printf("backend %s, style %s: %d connections held (accepted in %d ms); "
                            + "heap +%.1f MiB = %d B/conn; RSS +%.1f MiB = %d B/conn%n",
                    loop.backendName(), style, held.size(), tookMs, heap / 1048576.0, heap / n, rss / 1048576.0, rss / n);
            clients.getOutputStream().close(); // tells the client process to let go
            clients.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void warmUp(Loop loop, int port) throws Exception {
        Thread t = new Thread(() -> {
            for (int i = 0; i < 10; i++) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    s.getOutputStream().write(1);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            }
        });
        t.start();
        Promise<Void> done = loop.newPromise();
        loop.callLater(Duration.ofMillis(300), () -> done.complete(null));
        loop.runUntilComplete(done);
        t.join();
    }

    /**
     * The client process: opens {@code n} blocking sockets, with {@code partialLine} sends one byte
     * of a line on each, and holds them until stdin closes.
     */
    private static void client(int port, int n, boolean partialLine) throws IOException {
        List<Socket> sockets = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            Socket s = new Socket("127.0.0.1", port);
            if (partialLine) {
                s.getOutputStream().write('x');
            }
            sockets.add(s);
        }
        new BufferedReader(new InputStreamReader(System.in)).read(); // until the parent closes it
        for (Socket s : sockets) {
            s.close();
        }
    }

    private static void gc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(50);
        }
    }

    private static long heapUsed() {
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Resident set size in bytes, from /proc (Linux); 0 elsewhere. */
    private static long rss() throws IOException {
        Path status = Path.of("/proc/self/status");
        if (!Files.exists(status)) {
            return 0;
        }
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D+", "")) * 1024;
            }
        }
        return 0;
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
