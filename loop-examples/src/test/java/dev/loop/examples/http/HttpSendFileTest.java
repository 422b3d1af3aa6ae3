package dev.loop.examples.http;

import static dev.loop.examples.ExternalTools.assumeInstalled;
import static dev.loop.examples.ExternalTools.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.examples.ExternalTools.Result;
import dev.loop.testkit.Cell;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Static files larger than one {@code sendFile} segment ({@link FileStream#SEGMENT}): the segments
 * queued one behind another arrive whole and in order, to two clients at once and to one on a
 * kept-alive connection after a first file.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpSendFileTest {
    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void curlGetsFilesOfSeveralSegmentsByteExact(Cell cell) throws Exception {
        assumeInstalled("curl", "curl");
        Path www = Files.createDirectories(tmp.resolve("www"));
        byte[] big = new byte[(int) (2 * FileStream.SEGMENT + 12_345)]; // two whole segments and part of a third
        new Random(7).nextBytes(big);
        Files.write(www.resolve("big.bin"), big);
        byte[] odd = new byte[(int) FileStream.SEGMENT + 1];
        new Random(8).nextBytes(odd);
        Files.write(www.resolve("odd.bin"), odd);
        HttpServer.Config c = HttpServer.Config.defaults().withDir(www, false)
                .withAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).withBackend(cell.backend());
        try (HttpServer server = HttpServer.start(c)) {
            String base = "http://127.0.0.1:" + server.address().getPort();
            Path a = tmp.resolve("a");
            Path b = tmp.resolve("b");
            Path d = tmp.resolve("d");
            // one connection, two files one after the other; and a second client at the same time
            Result both = run(DEADLINE, "sh", "-c", "curl -sS -o " + a + " " + base + "/odd.bin -o " + b + " " + base
                    + "/big.bin & curl -sS -o " + d + " " + base + "/big.bin; wait");
            assertEquals(0, both.exit(), both.toString());
            assertArrayEquals(sha256(odd), sha256(Files.readAllBytes(a)));
            assertArrayEquals(sha256(big), sha256(Files.readAllBytes(b)));
            assertArrayEquals(sha256(big), sha256(Files.readAllBytes(d)));
        }
    }

    private static byte[] sha256(byte[] b) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }
}
