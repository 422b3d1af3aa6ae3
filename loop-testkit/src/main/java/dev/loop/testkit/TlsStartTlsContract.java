package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Connection;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.TlsOptions;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * STARTTLS: a plaintext connection upgraded in place, with what was queued before it sent first in
 * plaintext, refused while a read is pending or on TLS already, and closed when it fails.
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tls")
public class TlsStartTlsContract extends TlsSuite {

    @Test
    void startTlsWithTheClientHelloRightBehindTheCommand() throws Exception {
        Loop loop = open();
        Promise<String> secret = loop.newPromise();
        Server server = plainListen(loop, c -> loop.callLater(Duration.ofMillis(50), () -> // both arrive before the read
                c.readLine(100).onDone(cmd -> {
                    assertEquals("STARTTLS", cmd.result());
                    c.startTls(TestCertificates.server()).onDone(up -> c.readLine(100).onDone(line -> {
                        c.write(ascii("got " + line.result() + "\n"));
                        secret.complete(line.result());
                    }));
                })));
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        client.write(ascii("STARTTLS\n"));
        LoopFuture<Connection> upgraded = client.startTls(TestCertificates.clientOptions());
        client.write(ascii("secret\n")); // written during the handshake: waits for it, then goes encrypted
        assertEquals(client, await(loop, upgraded));
        assertEquals("secret", await(loop, secret));
        assertEquals("got secret", await(loop, client.readLine(100)));
        assertEquals("TLSv1.3", client.tls().protocol());
    }

    @Test
    void startTlsSendsWhatWasQueuedBeforeItInPlaintextFirst() throws Exception {
        Loop loop = open();
        byte[] plain = NetContract.randomBytes(new Random(7), 4 << 20); // more than the kernel takes at once: it is queued
        Server server = plainListen(loop, c -> {
            c.write(plain);
            c.startTls(TestCertificates.server()).onDone(up -> c.setHandler((conn, data) -> conn.write(data)));
        });
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        ByteBuffer got = await(loop, client.readExactly(plain.length));
        assertArrayEquals(plain, got.array());
        await(loop, client.startTls(TestCertificates.clientOptions()));
        assertEchoes(loop, client, "encrypted now");
    }

    @Test
    void startTlsIsRefusedWhileAReadIsPendingOrOnTls() throws Exception {
        Loop loop = open();
        Server server = plainListen(loop, c -> { });
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        LoopFuture<Integer> pending = client.read(ByteBuffer.allocate(10));
        assertThrows(IllegalStateException.class, () -> client.startTls(TestCertificates.clientOptions()));
        assertFalse(pending.isDone(), "the refused call changed nothing");
        Server tls = echoServer(loop);
        Connection secure = await(loop, connect(loop, tls));
        assertThrows(IllegalStateException.class, () -> secure.startTls(TestCertificates.clientOptions()));
    }

    @Test
    void aFailedStartTlsFailsItsFutureAndClosesTheConnection() throws Exception {
        Loop loop = open();
        Server server = plainListen(loop, c -> c.startTls(TlsOptions.of(TestCertificates.untrusted().context())));
        Connection client = await(loop, Net.connect(loop, server.localAddress()));
        Throwable e = awaitFailure(loop, client.startTls(TestCertificates.clientOptions()));
        assertInstanceOf(SSLHandshakeException.class, e);
        await(loop, client.closeFuture());
        assertFalse(client.isOpen());
    }
}
