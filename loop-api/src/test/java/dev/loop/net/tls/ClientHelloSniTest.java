package dev.loop.net.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;

/** The SNI name is found in real ClientHellos made by the JDK, whole, cut short, or split over records. */
class ClientHelloSniTest {
    private static ByteBuffer clientHello(String sni) throws Exception {
        SSLEngine e = SSLContext.getDefault().createSSLEngine("127.0.0.1", 443);
        e.setUseClientMode(true);
        if (sni != null) {
            SSLParameters p = e.getSSLParameters();
            p.setServerNames(List.of(new SNIHostName(sni)));
            e.setSSLParameters(p);
        }
        ByteBuffer out = ByteBuffer.allocate(64 * 1024);
        e.wrap(ByteBuffer.allocate(0), out);
        return out.flip();
    }

    @Test
    void findsTheNameInAWholeHello() throws Exception {
        ByteBuffer hello = clientHello("www.example.com");
        int position = hello.position();
        assertEquals("www.example.com", ClientHelloSni.serverName(hello));
        assertEquals(position, hello.position(), "the buffer is not moved");
    }

    @Test
    void aHelloWithoutSniHasTheEmptyName() throws Exception {
        assertEquals("", ClientHelloSni.serverName(clientHello(null)));
    }

    @Test
    void needsMoreBytesUntilTheHelloIsWhole() throws Exception {
        ByteBuffer hello = clientHello("a.test");
        for (int cut : new int[] {0, 3, 5, 40, hello.remaining() - 1}) {
            assertNull(ClientHelloSni.serverName(hello.duplicate().limit(cut)), "cut at " + cut);
        }
    }

    @Test
    void readsAHelloSplitOverThreeRecords() throws Exception {
        ByteBuffer hello = clientHello("split.example");
        byte[] body = new byte[hello.remaining() - 5];
        hello.position(5).get(body);
        int[] cuts = {0, 7, 100, body.length};
        ByteBuffer records = ByteBuffer.allocate(body.length + 3 * 5);
        for (int i = 0; i < 3; i++) {
            int len = cuts[i + 1] - cuts[i];
            records.put((byte) 22).put((byte) 3).put((byte) 3).putShort((short) len).put(body, cuts[i], len);
        }
        records.flip();
        assertEquals("split.example", ClientHelloSni.serverName(records));
        assertNull(ClientHelloSni.serverName(records.duplicate().limit(records.limit() - 1)));
    }

    @Test
    void bytesThatAreNotAHelloFail() {
        SSLHandshakeException e = assertThrows(SSLHandshakeException.class, () -> ClientHelloSni.serverName(
                ByteBuffer.wrap("GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII))));
        assertTrue(e.getMessage().contains("content type 71"), e.getMessage()); // 'G'
        ByteBuffer serverHelloType = ByteBuffer.wrap(new byte[] {22, 3, 3, 0, 4, 2, 0, 0, 0});
        assertThrows(SSLHandshakeException.class, () -> ClientHelloSni.serverName(serverHelloType));
    }
}
