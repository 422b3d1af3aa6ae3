package dev.loop.bench.dgram;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Echo throughput and server cost per message, side by side in one run, for UDP and for stream
 * sockets over TCP and Unix domain sockets:
 *
 * <pre>
 * java -cp loop-bench/target/benchmarks.jar dev.loop.bench.dgram.EchoBench \
 *     --transport udp --impls loop-select,loop-epoll,netty-nio,netty-epoll,jdk [--peers 4] [--window 8]
 * </pre>
 *
 * For each implementation it starts {@link EchoServers} in a process of its own, and {@code peers}
 * client threads here, each keeping {@code window} messages of 64 bytes in flight (blocking JDK
 * sockets; a UDP window lost to a full buffer is sent again after 200 ms). After a warm-up it
 * reads the server's count of echoed messages and its CPU time ({@code /proc/PID/stat}) over a
 * window, then attaches {@code strace -c -f} for a second window and divides the system calls
 * by the messages echoed meanwhile (strace slows the server down; the ratio is what counts; the
 * control thread's own read and write for the two counts are in it, a rounding error).
 */
public final class EchoBench {
    private EchoBench() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new LinkedHashMap<>(Map.of("--transport", "udp", "--impls", "loop-select,loop-epoll",
                "--peers", "4", "--window", "8", "--warmup", "3", "--seconds", "5", "--strace", "3"));
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!o.containsKey(args[i])) {
                throw new IllegalArgumentException("unknown option " + args[i] + "; options: " + o.keySet());
            }
            o.put(args[i], args[i + 1]);
        }
        String transport = o.get("--transport");
        System.out.printf("transport %s, %s peers x %s in flight, 64-byte messages; JDK %s; %s CPUs; load %s%n",
                transport, o.get("--peers"), o.get("--window"), Runtime.version(),
                Runtime.getRuntime().availableProcessors(), Files.readString(Path.of("/proc/loadavg")).trim());
        System.out.println("| server | messages/s | server CPU µs/message | syscalls/message (strace) | most frequent |");
        System.out.println("|---|---:|---:|---:|---|");
        for (String impl : o.get("--impls").split(",")) {
            System.out.println(run(impl, transport, Integer.parseInt(o.get("--peers")), Integer.parseInt(o.get("--window")),
                    Integer.parseInt(o.get("--warmup")), Integer.parseInt(o.get("--seconds")),
                    Integer.parseInt(o.get("--strace"))));
        }
    }

    static String run(String impl, String transport, int peers, int window, int warmup, int seconds, int straceSeconds)
            throws Exception {
        String java = ProcessHandle.current().info().command().orElse("java");
        Process server = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED",
                "--add-exports", "java.base/jdk.internal.vm=ALL-UNNAMED", "-Xms512m", "-Xmx512m",
                "-cp", System.getProperty("java.class.path"), EchoServers.class.getName(), impl, transport)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        BufferedReader from = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
        OutputStream to = server.getOutputStream();
        String first = from.readLine();
        if (first == null || !first.startsWith("LISTENING ")) {
            server.destroy();
            return "| " + impl + " | failed to start: " + first + " | | | |";
        }
        String where = first.substring("LISTENING ".length());
        SocketAddress target = transport.equals("unix") ? UnixDomainSocketAddress.of(where)
                : new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(where));
        AtomicLong resent = new AtomicLong();
        stopping = false;
        List<Thread> clients = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            Thread t = Thread.ofPlatform().daemon().start(() -> {
                try {
                    if (transport.equals("udp")) {
                        udpPeer((InetSocketAddress) target, window, resent);
                    } else {
                        streamPeer(target, window);
                    }
                } catch (IOException e) {
                    if (!stopping) {
                        e.printStackTrace();
                    }
                }
            });
            clients.add(t);
        }
        try {
            Thread.sleep(warmup * 1000L);
            long c0 = count(to, from);
            long cpu0 = cpuTicks(server.pid());
            long t0 = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            long c1 = count(to, from);
            long cpu1 = cpuTicks(server.pid());
            double secs = (System.nanoTime() - t0) / 1e9;
            double rate = (c1 - c0) / secs;
            double cpuMicrosPer = (cpu1 - cpu0) * (1e6 / 100) / Math.max(1, c1 - c0); // USER_HZ = 100
            Path out = Files.createTempFile("strace", ".txt");
            // counted from before strace starts to after it has detached: every call it saw is in
            long c2 = count(to, from);
            Process strace = new ProcessBuilder("strace", "-c", "-f", "-qq", "-o", out.toString(),
                    "-p", Long.toString(server.pid())).redirectErrorStream(true).start();
            Thread.sleep(straceSeconds * 1000L);
            strace.destroy(); // SIGTERM: strace detaches and writes its summary
            strace.waitFor();
            long c3 = count(to, from);
            Map<String, Long> calls = parseStrace(Files.readAllLines(out));
            Files.delete(out);
            long messages = Math.max(1, c3 - c2);
            long total = calls.values().stream().mapToLong(Long::longValue).sum();
            StringBuilder top = new StringBuilder();
            calls.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(4)
                    .forEach(e -> top.append(e.getKey()).append(' ')
                            .append(String.format(Locale.ROOT, "%.2f", e.getValue() / (double) messages)).append(", "));
            if (top.length() > 2) {
                top.setLength(top.length() - 2);
            }
            return String.format(Locale.ROOT, "| %s | %,.0f | %.1f | %.2f | %s |%s", impl, rate, cpuMicrosPer,
                    total / (double) messages, top, resent.get() > 0 ? " (" + resent.get() + " windows resent)" : "");
        } finally {
            stopping = true;
            to.close();
            server.destroy();
            server.waitFor();
            for (Thread t : clients) {
                t.join(2000);
            }
        }
    }

    private static volatile boolean stopping;

    static long count(OutputStream to, BufferedReader from) throws IOException {
        to.write('\n');
        to.flush();
        return Long.parseLong(from.readLine().trim());
    }

    /** User plus system CPU time of {@code pid} in clock ticks. */
    static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }

    /** The calls column of {@code strace -c}, by system call. */
    static Map<String, Long> parseStrace(List<String> lines) {
        Map<String, Long> calls = new LinkedHashMap<>();
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 5 && f[0].matches("[0-9.]+") && !f[f.length - 1].equals("total")) {
                calls.put(f[f.length - 1], Long.parseLong(f[3]));
            }
        }
        return calls;
    }

    static void udpPeer(InetSocketAddress server, int window, AtomicLong resent) throws IOException {
        try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            s.connect(server);
            s.setSoTimeout(200);
            byte[] out = new byte[EchoServers.UNIT];
            DatagramPacket send = new DatagramPacket(out, out.length);
            DatagramPacket in = new DatagramPacket(new byte[2048], 2048);
            for (int i = 0; i < window; i++) {
                s.send(send);
            }
            while (!stopping) {
                try {
                    s.receive(in);
                    s.send(send);
                } catch (SocketTimeoutException lost) {
                    resent.incrementAndGet();
                    for (int i = 0; i < window; i++) {
                        s.send(send);
                    }
                }
            }
        }
    }

    static void streamPeer(SocketAddress server, int window) throws IOException {
        try (SocketChannel c = SocketChannel.open(server instanceof UnixDomainSocketAddress
                ? StandardProtocolFamily.UNIX : StandardProtocolFamily.INET)) {
            c.connect(server);
            if (server instanceof InetSocketAddress) {
                c.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
            }
            ByteBuffer burst = ByteBuffer.allocateDirect(EchoServers.UNIT * window);
            while (burst.hasRemaining()) {
                c.write(burst);
            }
            ByteBuffer one = ByteBuffer.allocateDirect(EchoServers.UNIT);
            ByteBuffer in = ByteBuffer.allocateDirect(EchoServers.UNIT);
            while (!stopping) {
                in.clear();
                while (in.hasRemaining()) {
                    if (c.read(in) < 0) {
                        return;
                    }
                }
                one.clear();
                while (one.hasRemaining()) {
                    c.write(one);
                }
            }
        }
    }
}
