package dev.loop.testkit;

import static dev.loop.testkit.Runs.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.DatagramHandler;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Errors a datagram peer causes, as often as it likes: a connected endpoint whose peer's host
 * refuses every datagram gets an ICMP port unreachable for each. A handler that takes errors
 * ({@code onError} of its own) sees every one; one that does not must not turn each into a report
 * (a log record with a trace by default): they are summarised.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#datagrams")
public class DatagramErrorFloodContract extends DatagramSuite {
    private static final int REFUSALS = 200;

    @Test
    void refusalsAHandlerDoesNotTakeAreSummarisedNotReportedOneByOne() throws Exception {
        Loop loop = open();
        List<String> reports = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> reports.add(message + (error == null ? "" : " / " + error)));
        InetSocketAddress dead = deadPort(loop);
        DatagramEndpoint client = Datagrams.connect(loop, dead);
        client.setHandler((ep, data, sender) -> { });
        refuse(loop, client);
        assertTrue(reports.size() <= 2, "reports while refused: " + reports);
        assertTrue(reports.stream().allMatch(r -> !r.contains(" / ")), "a report carried an exception (a trace): " + reports);
        client.close();
        await(loop, client.closeFuture());
        String all = String.join("\n", reports);
        assertTrue(reports.size() <= 3, "reports after closing: " + reports);
        assertTrue(all.contains("Port unreachable") || all.contains("port unreachable"), all);
        Matcher m = Pattern.compile("(\\d+) more failures? like it").matcher(all);
        assertTrue(m.find(), "the close tells the count still untold: " + all);
        int told = 1 + Integer.parseInt(m.group(1));
        assertTrue(told >= REFUSALS / 2, "refusals counted: " + told + " of " + REFUSALS + " sent: " + all);
    }

    @Test
    void aHandlerThatTakesErrorsSeesEveryOne() throws Exception {
        Loop loop = open();
        List<String> reports = new CopyOnWriteArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> reports.add(message));
        InetSocketAddress dead = deadPort(loop);
        DatagramEndpoint client = Datagrams.connect(loop, dead);
        List<IOException> seen = new CopyOnWriteArrayList<>();
        client.setHandler(new DatagramHandler() {
            @Override
            public void onDatagram(DatagramEndpoint endpoint, ByteBuffer data, InetSocketAddress sender) {
            }

            @Override
            public void onError(DatagramEndpoint endpoint, IOException error) {
                seen.add(error);
            }
        });
        refuse(loop, client);
        assertTrue(seen.size() >= REFUSALS / 2, "refusals seen: " + seen.size() + " of " + REFUSALS + " sent");
        assertEquals(List.of(), reports);
    }

    /** Sends {@link #REFUSALS} datagrams one at a time, each given time for its refusal to come back. */
    private static void refuse(Loop loop, DatagramEndpoint client) throws Exception {
        for (int i = 0; i < REFUSALS; i++) {
            await(loop, client.send(utf8("x" + i)));
            pause(loop, Duration.ofMillis(2)); // on loopback the refusal is back within microseconds
        }
        pause(loop, Duration.ofMillis(50));
    }

    private static void pause(Loop loop, Duration d) {
        Promise<Void> later = loop.newPromise();
        loop.callLater(d, () -> later.complete(null));
        await(loop, later);
    }
}
