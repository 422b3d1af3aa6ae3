package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.BackendProvider;
import dev.loop.spi.IoDriver;
import dev.loop.spi.IoReady;
import dev.loop.spi.IoServerSocket;
import dev.loop.spi.IoSocket;
import dev.loop.spi.NetIo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A readiness receiver ({@link IoReady#onReady}) that throws, on every backend's driver: the poll
 * returns normally, the other receivers of the same poll are served, each throw reaches the
 * handler the engine gave the driver exactly once (the same exception, naming the socket), and
 * the socket keeps working. The receivers of {@code dev.loop.net} never throw, so the suite drives
 * the SPI directly, as the engine does; {@code loop-api}'s {@code ReceiverFailureTest} covers the
 * engine's side (the report reaches the loop's exception handler after the poll).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#backendsOverTcp")
public class ReceiverFailureContract {

    /** What runs here needs the kernel's sockets; a simulated network's are left out. */
    @org.junit.jupiter.api.BeforeEach
    void kernelSocketsOnly() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Matrix.kernelSockets(cell.backend()),
                "backend " + cell.backend() + " has no kernel sockets: the clients are JDK sockets");
    }

    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    /** A poll's longest wait here; short, so a missing report fails in seconds rather than hangs. */
    private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(10);

    @Parameter
    Cell cell;

    /** One report the driver made: whose receiver failed, and with what. */
    private record Report(Object source, Throwable failure) {
    }

    @Test
    void aReceiverThatThrowsIsReportedOnceAndThePollCarriesOn() throws Exception {
        IoDriver driver = newDriver();
        List<Report> reports = new ArrayList<>();
        driver.reportFailuresTo((source, failure) -> reports.add(new Report(source, failure)));
        List<RuntimeException> thrown = new ArrayList<>();
        int[] servedOps = new int[1];
        try {
            NetIo net = driver.net();
            IoServerSocket failing = net.listen(ANY_PORT, 16, Map.of(), ops -> {
                RuntimeException e = new IllegalStateException("receiver bug #" + (thrown.size() + 1));
                thrown.add(e);
                throw e;
            });
            IoServerSocket served = net.listen(ANY_PORT, 16, Map.of(), ops -> servedOps[0] |= ops);
            failing.interest(true, false);
            served.interest(true, false);
            try (Socket a = new Socket(); Socket b = new Socket()) {
                // blocking connects complete on the kernel's accept queue: nothing needs the loop
                a.connect(failing.localAddress());
                b.connect(served.localAddress());

                pollUntil(driver, () -> !thrown.isEmpty() && servedOps[0] != 0);
                assertTrue((servedOps[0] & IoReady.READ) != 0, "the other receiver of the poll was served");
                assertEquals(thrown.size(), reports.size(), "every throw is reported, and only once");
                for (int i = 0; i < thrown.size(); i++) {
                    assertSame(failing, reports.get(i).source(), "the report names the failing socket");
                    assertSame(thrown.get(i), reports.get(i).failure());
                }

                // The connection is still pending and readiness is level-triggered: asked again (as
                // the layer above asks after each readiness; io_uring re-reports on that), the
                // receiver is told again, throws again, and that is one more report, not a broken
                // driver.
                int before = thrown.size();
                failing.interest(true, false);
                pollUntil(driver, () -> thrown.size() > before);
                assertEquals(thrown.size(), reports.size());

                // The failing socket still works: its pending connection can be taken.
                IoSocket accepted = failing.accept();
                assertNotNull(accepted, "the socket whose receiver threw still accepts");
                accepted.close();
            }
            failing.close();
            served.close();
        } finally {
            driver.close();
        }
    }

    private IoDriver newDriver() throws IOException {
        for (BackendProvider p : ServiceLoader.load(BackendProvider.class)) {
            if (p.name().equals(cell.backend())) {
                return p.newDriver();
            }
        }
        throw new IllegalStateException("no backend named " + cell.backend());
    }

    /** Polls as the engine does until {@code done}; a poll that throws fails the test. */
    private static void pollUntil(IoDriver driver, BooleanSupplier done) throws IOException {
        long deadline = System.nanoTime() + PATIENCE_NANOS;
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() - deadline < 0, "the driver never reported the readiness it was asked for");
            driver.poll(POLL_NANOS);
        }
    }
}
