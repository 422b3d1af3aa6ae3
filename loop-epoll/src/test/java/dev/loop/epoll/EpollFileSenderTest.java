package dev.loop.epoll;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.spi.IoFileSender;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.LinuxSocket;
import java.io.InputStream;
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
 * That epoll really sends files with {@code sendfile(2)}: the shared suite sees only the bytes
 * arrive, which the fallback that reads the file would achieve as well.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class EpollFileSenderTest {
    @TempDir
    Path dir;

    @Test
    void sendsARangeOfAJdkFileChannelWithNettysSendfile() throws Exception {
        assumeTrue(Epoll.isAvailable(), "epoll does not run here");
        assertTrue(EpollFileSender.available(), "Netty's sendfile must be reachable on the class path");
        Path p = dir.resolve("f");
        Files.writeString(p, "0123456789");
        try (FileChannel file = FileChannel.open(p);
             ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            LinuxSocket socket = LinuxSocket.newSocketStream(false);
            try {
                socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), server.getLocalPort()));
                try (Socket peer = server.accept()) {
                    IoFileSender sender = EpollFileSender.of(socket, file);
                    assertNotNull(sender, "a JDK FileChannel goes to sendfile");
                    assertEquals(4, sender.sendFile(file, 3, 4));
                    assertEquals(-1, sender.sendFile(file, 10, 5), "nothing at the end of the file");
                    assertEquals(0, file.position(), "sendfile with an offset leaves the channel's position");
                    InputStream in = peer.getInputStream();
                    assertArrayEquals("3456".getBytes(StandardCharsets.US_ASCII), in.readNBytes(4));
                }
            } finally {
                socket.close();
            }
        }
    }

    /** A channel that is not the JDK's has no descriptor where the native code looks: the connection reads it instead. */
    @Test
    void anotherKindOfFileChannelIsNotHandedToNativeCode() throws Exception {
        assumeTrue(Epoll.isAvailable(), "epoll does not run here");
        Path p = dir.resolve("g");
        Files.writeString(p, "x");
        try (FileChannel real = FileChannel.open(p); FileChannel wrapper = new DelegatingFileChannel(real)) {
            assertNull(EpollFileSender.of(LinuxSocket.newSocketStream(false), wrapper));
        }
    }
}
