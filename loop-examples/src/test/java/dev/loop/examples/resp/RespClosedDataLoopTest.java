package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Loops;
import dev.loop.examples.ExternalTools;
import dev.loop.examples.io.OutputBuffer;
import dev.loop.net.Net;
import dev.loop.net.Server;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A client whose commands must go to a data loop that has closed (the server is shutting down, and
 * the loops close one after another): its connection is aborted, as the server has no keyspace to
 * run them on, and nothing is reported. A closed loop refuses work with
 * {@code RejectedExecutionException} ({@code Loop.execute}); a connection that expected another
 * type let it escape its handler, where it became an error report per client at every shutdown.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RespClosedDataLoopTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @Test
    void commandsForAClosedDataLoopAbortTheConnectionAndReportNothing() throws Exception {
        Loop data = Loops.open();
        RespConnection.Data d = new RespConnection.Data(data, new Commands(new Keyspace[] {new Keyspace(data)},
                Map.of()), new LongAdder(), new AtomicLong());
        data.close();

        List<String> reports = new CopyOnWriteArrayList<>();
        try (Loop home = Loops.open()) {
            home.setExceptionHandler((loop, message, error, source) -> reports.add(message + ": " + error));
            Thread runner = Thread.ofPlatform().name("home-loop").start(home::runForever);
            try {
                CompletableFuture<Server> listening = new CompletableFuture<>();
                home.execute(() -> {
                    try {
                        OutputBuffer out = new OutputBuffer(4096);
                        listening.complete(Net.listen(home, new InetSocketAddress("127.0.0.1", 0),
                                c -> new RespConnection(c, d, out, new RespParser(64, 1 << 20, 1 << 20)).start()));
                    } catch (IOException e) {
                        listening.completeExceptionally(e);
                    }
                });
                Server server = listening.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                try (Socket s = ExternalTools.connect(server.localAddress(), WAIT)) {
                    s.setSoTimeout((int) WAIT.toMillis());
                    s.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    assertTrue(endsWithoutReply(s.getInputStream()), "the connection ends without a reply");
                }
                CompletableFuture<Void> turned = new CompletableFuture<>();
                home.execute(() -> turned.complete(null)); // whatever the abort reported, it was reported before this
                turned.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertEquals(List.of(), reports, "nothing reported for a client the shutdown cut off");
            } finally {
                home.stop();
                runner.join(WAIT.toMillis());
            }
        }
    }

    /** True once the stream ends (end of stream or a reset) before any byte of a reply. */
    private static boolean endsWithoutReply(InputStream in) {
        try {
            return in.read() == -1;
        } catch (SocketTimeoutException stillOpen) {
            return false;
        } catch (IOException reset) {
            return true;
        }
    }
}
