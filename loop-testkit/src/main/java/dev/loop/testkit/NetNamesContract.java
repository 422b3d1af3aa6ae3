package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.ManualClock;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.net.Resolver;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.TlsOptions;
import java.io.Closeable;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Connecting by host name, on every backend with sockets: the system's resolver, IP literals that
 * never reach a resolver, Happy Eyeballs (RFC 8305) over both loopback families ({@code ::1} and
 * {@code 127.0.0.1}), the errors, cancellation, the resolver's cache and timeout, and TLS by name.
 * Names vary with neither timers nor tasks: one cell per backend.
 *
 * <p>An address that never answers is a listener that does not accept and whose backlog is full:
 * Linux then drops a SYN to it, so a connect there hangs until it is given up. Timing runs on a
 * {@link ManualClock}, so "250 ms" is exact and nothing sleeps.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#backendsOverTcp")
public class NetNamesContract extends NetSuite {
    private static final InetAddress V4 = address("127.0.0.1");
    private static final InetAddress V6 = address("::1");

    private final List<Closeable> held = new ArrayList<>();

    @AfterEach
    void closeHeld() throws IOException {
        for (Closeable c : held) {
            c.close();
        }
        held.clear();
    }

    private static InetAddress address(String literal) {
        try {
            return InetAddress.getByName(literal);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private ManualClock clock; // the clock of the loops this test opens, or null for the system's

    @Override
    protected LoopOptions options() {
        return clock == null ? super.options() : super.options().withClock(clock);
    }

    private Loop manual(ManualClock c) {
        clock = c;
        return open();
    }

    /** A resolver that answers {@code addresses} for every name at once, counting its calls. */
    private static Resolver fixed(AtomicInteger calls, InetAddress... addresses) {
        return (loop, host) -> {
            calls.incrementAndGet();
            Promise<List<InetAddress>> p = loop.newPromise();
            p.complete(List.of(addresses));
            return p;
        };
    }

    private static ConnectionOptions via(Resolver r) {
        return ConnectionOptions.defaults().withResolver(r);
    }

    /** A listener on {@code address:port} that never accepts, its backlog filled: connects to it hang. */
    private int blackhole(InetAddress address, int port) throws IOException {
        assumeKernelSockets("the address that never answers is a JDK listener with its backlog full");
        ServerSocket listener = new ServerSocket();
        held.add(listener);
        try {
            listener.bind(new InetSocketAddress(address, port), 1);
        } catch (IOException taken) {
            Assumptions.abort("cannot bind " + address + ":" + port + ": " + taken);
        }
        for (int i = 0; i < 16; i++) {
            Socket s = new Socket();
            held.add(s);
            try {
                s.connect(listener.getLocalSocketAddress(), 300);
            } catch (SocketTimeoutException full) {
                return listener.getLocalPort();
            }
        }
        throw new AssertionError("connects to a listener that does not accept kept succeeding: its SYNs are not dropped");
    }

    private Server listenOn(Loop loop, InetAddress address, int port, Promise<Connection> accepted) throws IOException {
        try {
            return Net.listen(loop, new InetSocketAddress(address, port), c -> accepted.tryComplete(c));
        } catch (java.net.BindException taken) {
            Assumptions.abort("port " + port + " is taken on " + address + ": " + taken.getMessage());
            return null;
        }
    }

    private static int deadPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, V4)) {
            return s.getLocalPort();
        }
    }

    // ------------------------------------------------------------------ resolving

    @Test
    void localhostConnectsThroughTheSystemResolver() throws Exception {
        Loop loop = open();
        Promise<Connection> accepted = loop.newPromise();
        Server server = listenOn(loop, V4, 0, accepted);
        Connection c = await(loop, Net.connect(loop, "localhost", server.localAddress().getPort()));
        assertEquals(V4, c.remoteAddress().getAddress());
        assertEquals("localhost", c.remoteAddress().getHostString(), "the connection names the host asked for");
        await(loop, accepted);
    }

    @Test
    void anUnknownNameFailsNamingIt() {
        Loop loop = open();
        String name = "no-such-host.invalid"; // RFC 6761: never resolves
        Throwable e = awaitFailure(loop, Net.connect(loop, name, 80,
                via(Resolver.system(Duration.ofSeconds(5)))));
        assertInstanceOf(UnknownHostException.class, e);
        assertTrue(e.getMessage().contains(name), e.getMessage());
    }

    @Test
    void anIpLiteralNeverReachesTheResolver() throws Exception {
        Loop loop = open();
        AtomicInteger calls = new AtomicInteger();
        Promise<Connection> accepted4 = loop.newPromise();
        Promise<Connection> accepted6 = loop.newPromise();
        Server v4 = listenOn(loop, V4, 0, accepted4);
        Server v6 = listenOn(loop, V6, 0, accepted6);
        Connection a = await(loop, Net.connect(loop, "127.0.0.1", v4.localAddress().getPort(), via(fixed(calls))));
        Connection b = await(loop, Net.connect(loop, "[::1]", v6.localAddress().getPort(), via(fixed(calls))));
        Connection c = await(loop, Net.connect(loop, "::1", v6.localAddress().getPort(), via(fixed(calls))));
        assertEquals(V4, a.remoteAddress().getAddress());
        assertEquals(V6, b.remoteAddress().getAddress());
        assertEquals(V6, c.remoteAddress().getAddress());
        assertEquals(0, calls.get(), "a literal is an address already");
        Throwable bad = awaitFailure(loop, Net.connect(loop, "[::1::2]", 80, via(fixed(calls))));
        assertInstanceOf(UnknownHostException.class, bad);
        assertEquals(0, calls.get(), "a malformed IPv6 literal is an error, not a name to look up");
    }

    // ------------------------------------------------------------------ Happy Eyeballs

    @Test
    void ipv6IsTriedFirstWhateverOrderTheResolverGives() throws Exception {
        ManualClock clock = ManualClock.create(); // never advanced: only the first attempt may start
        Loop loop = manual(clock);
        Promise<Connection> accepted4 = loop.newPromise();
        Promise<Connection> accepted6 = loop.newPromise();
        Server v4 = listenOn(loop, V4, 0, accepted4);
        int port = v4.localAddress().getPort();
        listenOn(loop, V6, port, accepted6);
        Connection c = await(loop, Net.connect(loop, "dual.test", port, via(fixed(new AtomicInteger(), V4, V6))));
        assertEquals(V6, c.remoteAddress().getAddress());
        assertEquals("dual.test", c.remoteAddress().getHostString());
        await(loop, accepted6);
        spin(loop, 3);
        assertFalse(accepted4.isDone(), "the IPv4 attempt was never needed");
    }

    @Test
    void theNextAttemptStartsAfterTheDelayAndTheFirstToConnectWins() throws Exception {
        ManualClock clock = ManualClock.create();
        Loop loop = manual(clock);
        List<Connection> accepted4 = new ArrayList<>();
        Server v4 = Net.listen(loop, new InetSocketAddress(V4, 0), accepted4::add);
        int port = v4.localAddress().getPort();
        blackhole(V6, port);
        warmUp(loop, v4);
        accepted4.clear();
        long fdsBefore = Fds.count();
        long start = loop.time();
        LoopFuture<Connection> f = Net.connect(loop, "dual.test", port, via(fixed(new AtomicInteger(), V6, V4)));
        spin(loop, 5);
        assertFalse(f.isDone(), "the IPv6 address never answers");
        clock.advance(Duration.ofMillis(249));
        spin(loop, 5);
        assertFalse(f.isDone());
        assertTrue(accepted4.isEmpty(), "the IPv4 attempt started before the delay");
        if (fdsBefore >= 0) {
            assertEquals(fdsBefore + 1, Fds.count(), "one attempt in flight");
        }
        clock.advance(Duration.ofMillis(1));
        Connection c = await(loop, f);
        assertEquals(TimeUnit.MILLISECONDS.toNanos(250), loop.time() - start, "the second attempt starts at 250 ms");
        assertEquals(V4, c.remoteAddress().getAddress());
        spin(loop, 3); // the selector releases a closed channel's descriptor on its next select
        assertEquals(1, accepted4.size());
        if (fdsBefore >= 0) {
            assertEquals(fdsBefore + 2, Fds.count(), "the losing IPv6 attempt's socket is closed (left: the winner and its accepted peer)");
        }
    }

    /** One connect and close before descriptors are counted: lazily opened resources are open by then. */
    private void warmUp(Loop loop, Server server) {
        Connection c = await(loop, Net.connect(loop, server.localAddress()));
        spin(loop, 3);
        await(loop, c.close());
        for (Connection accepted : server.connections()) {
            await(loop, accepted.close());
        }
        spin(loop, 3);
    }

    @Test
    void theDelayIsConfigurable() throws Exception {
        ManualClock clock = ManualClock.create();
        Loop loop = manual(clock);
        Promise<Connection> accepted4 = loop.newPromise();
        Server v4 = listenOn(loop, V4, 0, accepted4);
        int port = v4.localAddress().getPort();
        blackhole(V6, port);
        long start = loop.time();
        LoopFuture<Connection> f = Net.connect(loop, "dual.test", port,
                via(fixed(new AtomicInteger(), V6, V4)).withAttemptDelay(Duration.ofMillis(40)));
        spin(loop, 5);
        clock.advance(Duration.ofMillis(39));
        spin(loop, 5);
        assertFalse(f.isDone());
        clock.advance(Duration.ofMillis(1));
        assertEquals(V4, await(loop, f).remoteAddress().getAddress());
        assertEquals(TimeUnit.MILLISECONDS.toNanos(40), loop.time() - start);
    }

    @Test
    void aFailedAttemptStartsTheNextAtOnce() throws Exception {
        ManualClock clock = ManualClock.create(); // never advanced: no delay may pass
        Loop loop = manual(clock);
        Promise<Connection> accepted4 = loop.newPromise();
        Server v4 = listenOn(loop, V4, 0, accepted4);
        int port = v4.localAddress().getPort();
        // nothing listens on [::1]:port, so the first attempt is refused
        Connection c = await(loop, Net.connect(loop, "dual.test", port, via(fixed(new AtomicInteger(), V6, V4))));
        assertEquals(V4, c.remoteAddress().getAddress());
        assertEquals(0, loop.time(), "the refusal started the next attempt, not the delay");
    }

    @Test
    void whenEveryAttemptFailsTheFirstFailureCarriesTheOthers() throws Exception {
        Loop loop = open();
        int port = deadPort();
        Throwable e = awaitFailure(loop, Net.connect(loop, "dual.test", port, via(fixed(new AtomicInteger(), V4, V6))));
        assertInstanceOf(ConnectException.class, e);
        assertTrue(e.getMessage().contains("dual.test") && e.getMessage().contains("0:0:0:0:0:0:0:1"),
                "the first attempt (IPv6) names the host and its address: " + e.getMessage());
        assertEquals(1, e.getSuppressed().length, "the other attempt's failure");
        Throwable other = e.getSuppressed()[0];
        assertInstanceOf(ConnectException.class, other);
        assertTrue(other.getMessage().contains("127.0.0.1"), other.getMessage());
    }

    // ------------------------------------------------------------------ cancellation and timeouts

    @Test
    void cancellingTheConnectCancelsTheLookup() {
        Loop loop = open();
        List<Promise<List<InetAddress>>> lookups = new ArrayList<>();
        Resolver never = (l, host) -> {
            Promise<List<InetAddress>> p = l.newPromise();
            lookups.add(p);
            return p;
        };
        LoopFuture<Connection> f = Net.connect(loop, "slow.test", 80, via(never));
        spin(loop, 2);
        assertEquals(1, lookups.size());
        f.cancel();
        spin(loop, 2);
        assertTrue(lookups.get(0).isCancelled(), "the lookup is given up with the connect");
    }

    @Test
    void cancellingTheConnectClosesEveryAttempt() throws Exception {
        ManualClock clock = ManualClock.create();
        Loop loop = manual(clock);
        int port = blackhole(V4, 0);
        blackhole(V6, port);
        spin(loop, 2);
        long fdsBefore = Fds.count();
        LoopFuture<Connection> f = Net.connect(loop, "dual.test", port, via(fixed(new AtomicInteger(), V6, V4)));
        spin(loop, 3);
        clock.advance(Duration.ofMillis(250));
        spin(loop, 5);
        assertFalse(f.isDone());
        if (fdsBefore >= 0) {
            assertEquals(fdsBefore + 2, Fds.count(), "both attempts in flight");
        }
        f.cancel();
        spin(loop, 5);
        if (fdsBefore >= 0) {
            assertEquals(fdsBefore, Fds.count(), "every attempt's socket is closed");
        }
        clock.advance(Duration.ofSeconds(1));
        spin(loop, 3);
        assertTrue(reported.isEmpty(), "nothing reported: " + reported);
    }

    @Test
    void aLookupThatTakesTooLongFailsNamingTheHost() {
        ManualClock clock = ManualClock.create();
        Loop loop = manual(clock);
        List<Promise<List<InetAddress>>> lookups = new ArrayList<>();
        Resolver never = (l, host) -> {
            Promise<List<InetAddress>> p = l.newPromise();
            lookups.add(p);
            return p;
        };
        LoopFuture<Connection> f = Net.connect(loop, "slow.test", 80, via(never.withTimeout(Duration.ofSeconds(2))));
        spin(loop, 2);
        clock.advance(Duration.ofMillis(1999));
        spin(loop, 3);
        assertFalse(f.isDone());
        clock.advance(Duration.ofMillis(1));
        Throwable e = awaitFailure(loop, f);
        assertInstanceOf(UnknownHostException.class, e);
        assertTrue(e.getMessage().contains("slow.test") && e.getMessage().contains("timed out"), e.getMessage());
        assertTrue(lookups.get(0).isCancelled(), "the lookup under the timeout is given up");
    }

    @Test
    void theConnectTimeoutCoversTheWholeConnect() throws Exception {
        ManualClock clock = ManualClock.create();
        Loop loop = manual(clock);
        int port = blackhole(V4, 0);
        blackhole(V6, port);
        LoopFuture<Connection> f = Net.connect(loop, "dual.test", port,
                via(fixed(new AtomicInteger(), V6, V4)).withConnectTimeout(Duration.ofSeconds(3)));
        spin(loop, 3);
        clock.advance(Duration.ofMillis(2999));
        spin(loop, 5);
        assertFalse(f.isDone());
        clock.advance(Duration.ofMillis(1));
        Throwable e = awaitFailure(loop, f);
        assertInstanceOf(SocketTimeoutException.class, e);
        assertTrue(e.getMessage().contains("dual.test") && e.getMessage().contains("2 of 2"), e.getMessage());
    }

    // ------------------------------------------------------------------ the cache

    @Test
    void theCacheAnswersWithinItsTimeToLiveAndAsksAgainAfter() {
        ManualClock clock = ManualClock.create();
        Loop loop = manual(clock);
        AtomicInteger calls = new AtomicInteger();
        Resolver cached = fixed(calls, V4).cached(Duration.ofSeconds(30), 2);
        assertEquals(List.of(V4), await(loop, cached.resolve(loop, "a.test")));
        assertEquals(List.of(V4), await(loop, cached.resolve(loop, "A.Test")));
        assertEquals(1, calls.get(), "names are case-insensitive, and the second came from the cache");
        clock.advance(Duration.ofMillis(29_999));
        await(loop, cached.resolve(loop, "a.test"));
        assertEquals(1, calls.get());
        clock.advance(Duration.ofMillis(1));
        await(loop, cached.resolve(loop, "a.test"));
        assertEquals(2, calls.get(), "expired after its time to live");
        await(loop, cached.resolve(loop, "b.test"));
        await(loop, cached.resolve(loop, "c.test")); // holds two names: a.test, the least recently used, goes
        assertEquals(4, calls.get());
        await(loop, cached.resolve(loop, "a.test"));
        assertEquals(5, calls.get(), "the least recently used name was dropped for a third");
    }

    // ------------------------------------------------------------------ TLS by name

    @Test
    @Timeout(value = 90, unit = TimeUnit.SECONDS) // the first run makes a certificate with keytool: seconds on a busy machine
    void tlsByNameSendsTheNameAndVerifiesIt() throws Exception {
        TestCertificates.warmUp();
        Loop loop = open();
        TestCertificates.Identity sni = TestCertificates.forHost("sni.test");
        Server server = Net.listen(loop, new InetSocketAddress(V4, 0), ServerOptions.defaults(),
                TestCertificates.server().withServerContext("sni.test", sni.context()), c -> { });
        int port = server.localAddress().getPort();
        ConnectionOptions anyName = via(fixed(new AtomicInteger(), V4));
        // trusted only if the server chose sni.test's certificate, which it does only if SNI named it
        Connection c = await(loop, Net.connect(loop, "sni.test", port, anyName, TlsOptions.of(sni.trustedBy())));
        assertNotNull(c.tls());
        assertEquals("sni.test", c.remoteAddress().getHostString());
        // the localhost certificate is trusted, but does not carry this name
        Throwable e = awaitFailure(loop, Net.connect(loop, "other.test", port, anyName, TestCertificates.clientOptions()));
        assertInstanceOf(SSLException.class, e);
        assertTrue(e.getMessage().contains("other.test"), e.getMessage());
        assertNotNull(await(loop, Net.connect(loop, "localhost", port, anyName, TestCertificates.clientOptions())).tls());
    }
}
