package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.uring.IoUring;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * That io_uring really sends files with {@code sendfile(2)} where the JDK allows the call: the
 * shared suite sees only the bytes arrive, which the fallback that reads the file would achieve as
 * well.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class SendFileTest {
    @TempDir
    Path dir;

    @Test
    void sendsARangeWithTheCLibrarysSendfileAndSaysWhereTheFileEnds() throws Exception {
        assumeTrue(IoUring.isAvailable(), "io_uring does not run here");
        assumeTrue(Runtime.version().feature() >= 22, "java.lang.foreign is a preview in 21: the fallback reads");
        assertTrue(SendFile.available(), "sendfile must be reachable on JDK 22+ with native access");
        Path p = dir.resolve("f");
        Files.writeString(p, "0123456789");
        try (FileChannel file = FileChannel.open(p);
             ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            io.netty.channel.unix.Socket socket = io.netty.channel.unix.Socket.newSocketStream();
            socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
            try (Socket peer = server.accept()) {
                int fileFd = SendFile.descriptorOf(file);
                assertTrue(fileFd > 2, "the JDK channel's descriptor: " + fileFd);
                assertEquals(4, SendFile.send(socket.intValue(), fileFd, 3, 4));
                assertEquals(0, SendFile.send(socket.intValue(), fileFd, 10, 5), "0 at the end of the file");
                assertEquals(-9, SendFile.send(socket.intValue(), -1, 0, 1), "errno comes back negated (EBADF)");
                assertEquals(0, file.position());
                assertArrayEquals("3456".getBytes(StandardCharsets.US_ASCII), peer.getInputStream().readNBytes(4));
            } finally {
                socket.close();
            }
        }
    }
}
