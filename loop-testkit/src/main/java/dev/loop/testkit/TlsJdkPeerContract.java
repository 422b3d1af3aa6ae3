package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.LoopOptions;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.TlsOptions;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Our TLS against the JDK's own {@link SSLSocket}, a peer written elsewhere, on every backend with
 * sockets: what a peer may do after the handshake. A TLS 1.3 key update from either side (the JDK
 * sends one when {@code startHandshake()} is called again on an established TLS 1.3 socket) keeps
 * the bytes flowing; a TLS 1.2 renegotiation asked for by a client is refused by our server, which
 * closes that connection only.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class TlsJdkPeerContract {

    /** What runs here needs the kernel's sockets; a simulated network's are left out. */
    @org.junit.jupiter.api.BeforeEach
    void kernelSocketsOnly() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Matrix.kernelSockets(cell.backend()),
                "backend " + cell.backend() + " has no kernel sockets: the peers are the JDK's TLS sockets");
    }

    private static final int SO_TIMEOUT_MS = 8000;

    @Parameter
    Cell cell;

    @RegisterExtension
    final OpenLoops loops = new OpenLoops();

    @BeforeEach
    void warmUp() {
        TestCertificates.warmUp();
    }

    private Loop open() {
        LoopOptions o = cell.options();
        return loops.open(o);
    }

    /** Runs {@code peer} on a thread of its own: it blocks, the loop must not. */
    private static <T> LoopFuture<T> onThread(Loop loop, Callable<T> peer) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                f.complete(peer.call());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        });
        return LoopFuture.from(f, loop);
    }

    private static String line(BufferedReader in) throws IOException {
        return in.readLine();
    }

    private static void send(OutputStream out, String line) throws IOException {
        out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
    }

    private Server echoServer(Loop loop, TlsOptions tls) throws IOException {
        return Net.listen(loop, NetContract.ANY_PORT, ServerOptions.defaults(), tls,
                c -> c.setHandler((conn, data) -> conn.write(data)));
    }

    @Test
    void aKeyUpdateFromAJdkClientKeepsTheEchoGoing() throws Exception {
        Loop loop = open();
        Server server = echoServer(loop, TestCertificates.server());
        InetSocketAddress at = server.localAddress();
        LoopFuture<String> client = onThread(loop, () -> {
            try (SSLSocket s = (SSLSocket) TestCertificates.clientOptions().context().getSocketFactory()
                    .createSocket(at.getAddress(), at.getPort())) {
                s.setSoTimeout(SO_TIMEOUT_MS);
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                send(s.getOutputStream(), "before");
                String a = line(in);
                assertEquals("TLSv1.3", s.getSession().getProtocol());
                s.startHandshake(); // TLS 1.3, established: a KeyUpdate asking for ours in return
                send(s.getOutputStream(), "after");
                String b = line(in);
                s.startHandshake();
                send(s.getOutputStream(), "again");
                return a + " " + b + " " + line(in);
            }
        });
        assertEquals("before after again", NetContract.await(loop, client));
    }

    @Test
    void aKeyUpdateFromAJdkServerKeepsOurClientGoing() throws Exception {
        Loop loop = open();
        SSLServerSocket jdk = (SSLServerSocket) TestCertificates.server().context().getServerSocketFactory()
                .createServerSocket(0, 1, InetAddress.getLoopbackAddress());
        LoopFuture<String> peer = onThread(loop, () -> {
            try (jdk; SSLSocket s = (SSLSocket) jdk.accept()) {
                s.setSoTimeout(SO_TIMEOUT_MS);
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                StringBuilder got = new StringBuilder();
                for (int i = 0; i < 3; i++) {
                    String l = line(in);
                    got.append(l).append(' ');
                    s.startHandshake(); // a KeyUpdate before each answer
                    send(s.getOutputStream(), "re " + l);
                }
                return got.toString().trim();
            }
        });
        Connection c = NetContract.await(loop, Net.connect(loop,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), jdk.getLocalPort()), ConnectionOptions.defaults(),
                TestCertificates.clientOptions()));
        for (String word : new String[] {"one", "two", "three"}) {
            c.write((word + "\n").getBytes(StandardCharsets.UTF_8));
            assertEquals("re " + word, NetContract.await(loop, c.readLine(100)));
        }
        assertEquals("one two three", NetContract.await(loop, peer));
    }

    @Test
    void aTls12RenegotiationIsRefusedAndOnlyThatConnectionCloses() throws Exception {
        Loop loop = open();
        Promise<Throwable> closedWith = loop.newPromise();
        Server server = Net.listen(loop, NetContract.ANY_PORT, ServerOptions.defaults(),
                TestCertificates.server().withProtocols("TLSv1.2"), c -> c.setHandler(new ConnectionHandler() {
                    @Override
                    public void onData(Connection conn, ByteBuffer data) {
                        conn.write(data);
                    }

                    @Override
                    public void onClosed(Connection conn, Throwable error) {
                        if (error != null) {
                            closedWith.tryComplete(error);
                        }
                    }
                }));
        InetSocketAddress at = server.localAddress();
        LoopFuture<String> client = onThread(loop, () -> {
            try (SSLSocket s = (SSLSocket) TestCertificates.clientOptions().context().getSocketFactory()
                    .createSocket(at.getAddress(), at.getPort())) {
                s.setSoTimeout(SO_TIMEOUT_MS);
                s.setEnabledProtocols(new String[] {"TLSv1.2"});
                BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
                send(s.getOutputStream(), "first");
                String a = line(in);
                try {
                    s.startHandshake(); // renegotiate
                    send(s.getOutputStream(), "second");
                    return a + " " + line(in);
                } catch (IOException refused) {
                    return a + " refused";
                }
            }
        });
        String outcome = NetContract.await(loop, client);
        assertTrue(outcome.equals("first refused") || outcome.equals("first null"), outcome);
        Throwable why = NetContract.await(loop, closedWith);
        assertTrue(why.getMessage().contains("renegotiation") && why.getMessage().contains("refused"), why.toString());
        Connection other = NetContract.await(loop, Net.connect(loop, at, ConnectionOptions.defaults(),
                TestCertificates.clientOptions().withProtocols("TLSv1.2")));
        other.write("still fine\n".getBytes(StandardCharsets.UTF_8));
        assertEquals("still fine", NetContract.await(loop, other.readLine(100)));
    }
}
