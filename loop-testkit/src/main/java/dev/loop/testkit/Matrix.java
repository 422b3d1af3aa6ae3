package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ProviderInfo;
import dev.loop.net.Datagrams;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.Unix;
import dev.loop.spi.TimerQueueProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The conformance matrix, declared once: every available backend x every available timer
 * strategy x every task mechanism this JVM can run, all found on the class path (Tokio's
 * {@code rt_test!}, Netty's testsuite permutations). A suite names the slice it needs with
 * {@code @MethodSource("dev.loop.testkit.Matrix#...")}; a new backend or timer strategy is tested
 * by every suite as soon as it is on the class path.
 *
 * <p>System properties narrow it for a run: {@value #BACKENDS}, {@value #TIMERS},
 * {@value #MECHANISMS} and {@value #TRANSPORTS} take comma-separated names (a JVM started without the continuation export
 * runs {@code -Dloop.testkit.mechanisms=auto}, the fallback a user without the flag gets).
 * Providers found but unavailable are left out, each with its reason on standard error.
 */
public final class Matrix {
    public static final String BACKENDS = "loop.testkit.backends";
    public static final String TIMERS = "loop.testkit.timers";
    public static final String MECHANISMS = "loop.testkit.mechanisms";
    public static final String TRANSPORTS = "loop.testkit.transports";

    /** What the network suites' connections run over: plain TCP, Unix domain stream sockets, and TLS on TCP. */
    static final List<String> ALL_TRANSPORTS = List.of("tcp", "unix", "tls");

    private static final Map<String, Boolean> HAS_SOCKETS = new ConcurrentHashMap<>();
    private static final Map<String, Boolean> CAPABLE = new ConcurrentHashMap<>();
    private static volatile boolean reported;

    private Matrix() {
    }

    /** Backends x timer strategies: the engine's suites, which run no tasks. */
    public static Stream<Cell> loops() {
        List<Cell> cells = new ArrayList<>();
        for (String b : backends()) {
            for (String t : timers()) {
                cells.add(new Cell(b, t, null));
            }
        }
        return cells.stream();
    }

    /** Backends x timer strategies x task mechanisms. */
    public static Stream<Cell> tasks() {
        return withMechanisms(backends());
    }

    /**
     * Backends that have sockets x timer strategies x task mechanisms x the transports each of them
     * offers (a backend without Unix domain sockets runs the suites over TCP only).
     */
    public static Stream<Cell> sockets() {
        List<String> transports = transports();
        return withMechanisms(backends().stream().filter(Matrix::hasSockets).toList())
                .flatMap(c -> transports.stream().filter(t -> offers(c.backend(), t))
                        .map(t -> new Cell(c.backend(), c.timers(), c.mechanism(), t)));
    }

    /** Backends with UDP sockets x timer strategies x task mechanisms: the datagram suite. */
    public static Stream<Cell> datagrams() {
        return withMechanisms(backends().stream().filter(Matrix::hasSockets).filter(b -> offers(b, "udp")).toList());
    }

    /** Backends with Unix domain sockets x timer strategies: the suite of what is Unix-specific. */
    public static Stream<Cell> unixSockets() {
        return loops().filter(c -> hasSockets(c.backend()) && offers(c.backend(), "unix"));
    }

    /** Backends that can watch the program's own channels x timer strategies: the suite of watched channels and descriptors. */
    public static Stream<Cell> watches() {
        return loops().filter(c -> hasSockets(c.backend()) && offers(c.backend(), "watch"));
    }

    /**
     * {@link #sockets()} over plain TCP only: for the suites of faults and connection edge cases,
     * whose promises are the stream layer's and whose sizes (thousands of connections, a child JVM)
     * would cost a TLS handshake each on top.
     */
    public static Stream<Cell> tcpSockets() {
        return sockets().filter(c -> "tcp".equals(c.transport()));
    }

    static List<String> transports() {
        String only = System.getProperty(TRANSPORTS);
        return only == null || only.isBlank() ? ALL_TRANSPORTS : split(only);
    }

    /**
     * Backends that have sockets, once each, on the default timers, over TLS: for the suite of what
     * only TLS has (handshakes, certificates, STARTTLS), which does not vary with timers or tasks.
     */
    public static Stream<Cell> tls() {
        return backends().stream().filter(Matrix::hasSockets).map(b -> new Cell(b, "heap", null, "tls"));
    }

    /**
     * Backends that have sockets, on the default timers, over each transport they offer: for the
     * suites of how bytes leave a socket (files sent), which vary with the backend and with a
     * layer on the socket (TLS) but with neither timers nor tasks, and move megabytes per test.
     */
    public static Stream<Cell> transportsOnce() {
        List<String> transports = transports();
        return backends().stream().filter(Matrix::hasSockets)
                .flatMap(b -> transports.stream().filter(t -> offers(b, t)).map(t -> new Cell(b, "heap", null, t)));
    }

    /**
     * Backends that have sockets, once each, on the default timers, over TCP: for the suite of the
     * backends' own errors, which vary with neither timers nor tasks.
     */
    public static Stream<Cell> backendsOverTcp() {
        return backends().stream().filter(Matrix::hasSockets).map(b -> new Cell(b, "heap", null, "tcp"));
    }

    /**
     * Backends whose sockets are the kernel's, once each, on the default timers: for suites of
     * whole loop groups, which serve real clients (JDK sockets, curl, redis-cli).
     */
    public static Stream<Cell> groups() {
        return backends().stream().filter(Matrix::hasSockets).filter(Matrix::kernelSockets)
                .map(b -> new Cell(b, "heap", null));
    }

    /**
     * Backends that have sockets, once each, on the default timers and task mechanism: for the
     * suite of child processes, whose pipes go through the stream layer and whose cost is the
     * children's, not the timers'.
     */
    public static Stream<Cell> processes() {
        return backends().stream().filter(Matrix::hasSockets).map(b -> new Cell(b, "heap", null));
    }

    /** Every available timer strategy, by name, for the suite on the {@code TimerQueue} SPI itself. */
    public static Stream<String> timerQueues() {
        return timers().stream();
    }

    /** A new queue of the named strategy, straight from its provider. */
    public static dev.loop.spi.TimerQueue newTimerQueue(String name) {
        for (TimerQueueProvider p : ServiceLoader.load(TimerQueueProvider.class)) {
            if (p.name().equals(name)) {
                return p.newTimerQueue();
            }
        }
        throw new IllegalArgumentException("no timer strategy named " + name);
    }

    private static Stream<Cell> withMechanisms(List<String> backends) {
        List<Cell> cells = new ArrayList<>();
        for (String b : backends) {
            for (String t : timers()) {
                for (String m : mechanisms()) {
                    cells.add(new Cell(b, t, m));
                }
            }
        }
        return cells.stream();
    }

    static List<String> backends() {
        return available(ProviderInfo.BACKEND, BACKENDS);
    }

    static List<String> timers() {
        return available(ProviderInfo.TIMERS, TIMERS);
    }

    static List<String> mechanisms() {
        String only = System.getProperty(MECHANISMS);
        if (only != null && !only.isBlank()) {
            return split(only);
        }
        return continuationsExported() ? List.of("continuation", "threads") : List.of("threads");
    }

    /** Whether this JVM lets loop-api use {@code jdk.internal.vm.Continuation}. */
    public static boolean continuationsExported() {
        return Object.class.getModule().isExported("jdk.internal.vm", Loop.class.getModule());
    }

    private static List<String> available(String kind, String property) {
        List<ProviderInfo> all = Loops.providers().stream().filter(p -> p.kind().equals(kind)).toList();
        if (!reported) {
            reported = true;
            Loops.providers().stream().filter(p -> !p.available())
                    .forEach(p -> System.err.println("conformance matrix: leaving out " + p.describe()));
        }
        List<String> names = all.stream().filter(ProviderInfo::available).map(ProviderInfo::name).toList();
        String only = System.getProperty(property);
        if (only != null && !only.isBlank()) {
            List<String> wanted = split(only);
            for (String w : wanted) {
                if (!names.contains(w)) {
                    throw new IllegalArgumentException("-D" + property + " names " + w + ", which is not available: "
                            + Loops.providers().stream().map(ProviderInfo::describe).toList());
                }
            }
            return wanted;
        }
        return names;
    }

    private static List<String> split(String csv) {
        return Stream.of(csv.split(",")).map(s -> s.trim().toLowerCase(Locale.ROOT)).filter(s -> !s.isEmpty()).toList();
    }

    /**
     * Whether {@code backend} offers {@code transport} ({@code tcp}, {@code unix}, {@code udp}), or
     * watching the program's channels ({@code watch}): a backend that refuses it with an
     * {@link UnsupportedOperationException} is left out of the slices that need it, with its reason
     * on standard error. {@code kernel} asks whether its TCP sockets are the kernel's, so that a
     * JDK socket of this process reaches them and their descriptors count (a simulated network's
     * are not): the checks that need a JDK peer or count descriptors assume it.
     */
    static boolean offers(String backend, String transport) {
        if (transport.equals("tcp") || transport.equals("tls")) {
            return true; // TLS is a layer over TCP: every backend with sockets has it
        }
        return CAPABLE.computeIfAbsent(backend + "/" + transport, k -> {
            try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
                if (transport.equals("kernel")) {
                    return reachesTheKernel(loop);
                }
                if (transport.equals("watch")) {
                    java.nio.channels.Pipe pipe = java.nio.channels.Pipe.open();
                    try {
                        pipe.source().configureBlocking(false);
                        dev.loop.net.Watch.channel(loop, pipe.source()).close();
                    } finally {
                        pipe.source().close();
                        pipe.sink().close();
                    }
                } else if (transport.equals("udp")) {
                    Datagrams.bind(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).abort();
                } else {
                    Path dir = Files.createTempDirectory("loop");
                    try {
                        Unix.listen(loop, UnixDomainSocketAddress.of(dir.resolve("probe")), c -> { }).close();
                    } finally {
                        Files.deleteIfExists(dir.resolve("probe"));
                        Files.delete(dir);
                    }
                }
                return true;
            } catch (UnsupportedOperationException e) {
                if (transport.equals("watch") && e.getMessage() != null
                        && !e.getMessage().contains("cannot watch channels or descriptors")) {
                    return true; // it watches descriptors (Watch.fd), only not the JDK's channels
                }
                System.err.println("conformance matrix: leaving " + transport + " out for " + backend + ": " + e.getMessage());
                return false;
            } catch (IOException e) {
                throw new UncheckedIOException("probing " + transport + " on backend " + backend + " failed", e);
            }
        });
    }

    /** Whether a connect from {@code loop} reaches a JDK server socket of this process. */
    private static boolean reachesTheKernel(Loop loop) throws IOException {
        try (java.net.ServerSocket kernel = new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            var attempt = Net.connect(loop, (InetSocketAddress) kernel.getLocalSocketAddress(),
                    dev.loop.net.ConnectionOptions.defaults().withConnectTimeout(java.time.Duration.ofSeconds(5)));
            boolean reached = !Waits.awaitFailed(loop, attempt, java.time.Duration.ofSeconds(10));
            if (reached) {
                attempt.result().abort();
            } else {
                System.err.println("conformance matrix: backend " + loop.backendName() + " does not reach the kernel's"
                        + " sockets (" + attempt.exception() + "): checks with JDK peers or descriptor counts are left out");
            }
            return reached;
        }
    }

    /** Whether {@code backend}'s TCP sockets are the kernel's (see {@link #offers}). */
    public static boolean kernelSockets(String backend) {
        return offers(backend, "kernel");
    }

    /** Whether {@code backend} can listen on a socket (a test backend may not). */
    static boolean hasSockets(String backend) {
        return HAS_SOCKETS.computeIfAbsent(backend, b -> {
            try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(b))) {
                Server s = Net.listen(loop, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), c -> { });
                s.close();
                return true;
            } catch (UnsupportedOperationException | IOException none) {
                return false;
            }
        });
    }
}
