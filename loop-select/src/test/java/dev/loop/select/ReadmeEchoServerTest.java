package dev.loop.select;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Async;
import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The README's task-per-connection echo server, as written, against a blocking client. */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ReadmeEchoServerTest {

    @Test
    void answersEachLineAndClosesAtEndOfStream() throws Exception {
        try (Loop loop = Loops.open()) {
            // Port 0 instead of the README's 8888, so the test never collides with anything.
            Server server = Net.listen(loop, new InetSocketAddress("127.0.0.1", 0), conn -> loop.spawn(() -> {
                String line;
                while ((line = Async.await(conn.readLine(1024))) != null) {   // suspends until a line arrives
                    Async.await(conn.write(("Got: " + line + "\n").getBytes(UTF_8)));
                }
                return Async.await(conn.close());
            }));
            int port = server.localAddress().getPort();
            CompletableFuture<String> client = CompletableFuture.supplyAsync(() -> {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    OutputStream out = s.getOutputStream();
                    out.write("one\ntwo\n".getBytes(UTF_8));
                    s.shutdownOutput();
                    BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), UTF_8));
                    StringBuilder all = new StringBuilder();
                    for (String l; (l = in.readLine()) != null; ) {
                        all.append(l).append('|');
                    }
                    return all.toString();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });
            assertEquals("Got: one|Got: two|", loop.runUntilComplete(LoopFuture.from(client, loop)));
        }
    }
}
