package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A server at its open-file limit, on every backend with sockets: a {@link FaultServer} in a child
 * JVM started with the limit (soft and hard) at {@value #LIMIT}, filled from this process by
 * blocking clients until accept() fails, then partly freed. The server must back off (its CPU near
 * idle while it cannot accept), keep serving the connections it has, and accept the clients that
 * waited and new ones once descriptors are back. Each test starts a JVM, so it runs once per
 * backend, in the backend's first cell. Linux only (it reads {@code /proc}).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
@Conformance
@MethodSource("dev.loop.testkit.Matrix#tcpSockets")
public class OpenFileLimitContract extends NetSuite {

    /** What runs here needs the kernel's sockets; a simulated network's are left out. */
    @org.junit.jupiter.api.BeforeEach
    void kernelSocketsOnly() {
        assumeKernelSockets("the limit is the process's, and the clients are JDK sockets");
    }

    static final int LIMIT = 256;
    /** Clients beyond the limit, left in the server's accept queue. */
    private static final int WAITING = 20;
    /** Clients closed to free descriptors: more than {@link #WAITING}, so all the waiting fit. */
    private static final int FREED = 40;

    @BeforeEach
    void oncePerBackend() {
        Assumptions.assumeTrue(fullSize(), "starts a JVM: runs once per backend, in its first cell");
        Assumptions.assumeTrue(Fds.count() >= 0, "needs /proc");
    }

    /**
     * The server as it usually runs (its logging set up at start): while at the limit its CPU stays
     * near idle and its log has one record per interval, not one per retry, then one saying that
     * accepting works again.
     */
    @Test
    void aServerAtTheOpenFileLimitBacksOffKeepsServingAndRecovers() throws Exception {
        long start = System.nanoTime();
        try (FaultServer.Child child = FaultServer.Child.start(cell.backend(), LIMIT, false);
             Clients clients = new Clients(child.port)) { // closed on failure too: 250 sockets in this JVM
            long baseline = child.fds();
            int filled = fill(child, clients);
            long cpuBefore = child.cpuTicks();
            long wallBefore = System.nanoTime();
            Thread.sleep(2_000);
            double cpu = (child.cpuTicks() - cpuBefore) / 100.0 / ((System.nanoTime() - wallBefore) / 1e9); // USER_HZ = 100
            assertTrue(child.process.isAlive(), "the server died at the limit: " + child.stderr);
            assertTrue(cpu < 0.25, "the server used " + Math.round(cpu * 100) + "% of a core while it could not accept");
            assertEquals(LIMIT, child.fds(), "still at the limit");
            int served = freeAndServe(child, clients);
            clients.close();
            long after = assertChildBackTo(child, baseline);

            // about 2.5 s at the limit with a retry every 100 ms: one record per interval means one,
            // then one when accepting works again; not 25
            // the record is written before the first accept after the limit, but this process reads
            // the child's standard error on a thread of its own: wait for it to arrive
            awaitLine(child, "works again");
            long records = child.stderr.stream().filter(l -> l.contains("accepting on") && l.contains("failed")).count();
            assertTrue(records >= 1 && records <= 2, records + " accept-failure records: " + String.join("\n", child.stderr));
            System.out.printf("fault figures [%s] open-file limit: %d connections filled a child's %d descriptors, %d more"
                            + " waited; %.1f%% of a core while it could not accept; %d accept-failure record(s) logged;"
                            + " the %d left echoed after %d closed; child descriptors %d before, %d after; %d ms%n", cell, filled,
                    LIMIT, WAITING, cpu * 100, records, served, FREED, baseline, after,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
        }
    }

    /**
     * The server as the issue found it: nothing logged before the limit, so writing the first
     * record needs descriptors there are none of and fails. The loop must not die of its own error
     * path: it keeps serving and recovers as above.
     */
    @Test
    void aServerWhoseLogCannotBeWrittenAtTheLimitStillRecovers() throws Exception {
        try (FaultServer.Child child = FaultServer.Child.start(cell.backend(), LIMIT, true);
             Clients clients = new Clients(child.port)) { // closed on failure too: 250 sockets in this JVM
            long baseline = child.fds();
            fill(child, clients);
            Thread.sleep(500);
            assertTrue(child.process.isAlive(), "the server died at the limit: " + child.stderr);
            int served = freeAndServe(child, clients);
            clients.close();
            long after = assertChildBackTo(child, baseline);
            awaitLine(child, "Too many open files"); // why accept failed reaches the log, however it is written
            System.out.printf("fault figures [%s] open-file limit, logging not set up: alive at the limit; the %d left"
                    + " echoed after %d closed; child descriptors %d before, %d after; %d lines on its standard error%n",
                    cell, served, FREED, baseline, after, child.stderr.size());
        }
    }

    /** Opens clients until the child holds {@link #LIMIT} descriptors, then {@link #WAITING} more; returns the first count. */
    private static int fill(FaultServer.Child child, Clients clients) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (child.fds() < LIMIT) {
            assertTrue(System.nanoTime() < deadline && clients.open.size() < LIMIT + 100,
                    "the child has " + child.fds() + " descriptors after " + clients.open.size() + " connections");
            for (int i = 0; i < 10; i++) {
                clients.add();
            }
            Thread.sleep(20);
        }
        int filled = clients.open.size();
        for (int i = 0; i < WAITING; i++) {
            clients.add();
        }
        Thread.sleep(300); // it has met the limit and gone into back-off
        return filled;
    }

    /**
     * Checks a connection the server holds is served at the limit, closes the first {@link #FREED},
     * then checks every other one (those that waited in the accept queue included) and a new one
     * echo.
     *
     * @return connections that echoed after the freeing
     */
    private static int freeAndServe(FaultServer.Child child, Clients clients) throws IOException {
        echo(child, clients.open.get(0), "served while at the limit");
        for (Socket s : clients.open.subList(0, FREED)) {
            s.close();
        }
        clients.open.subList(0, FREED).clear();
        for (Socket s : clients.open) {
            echo(child, s, "accepted after the limit");
        }
        echo(child, clients.add(), "a new client");
        assertTrue(child.process.isAlive(), String.join("\n", child.stderr));
        return clients.open.size();
    }

    /**
     * Waits until the child holds no more descriptors than {@code baseline} (what it had before the
     * clients came): it closes its side of each connection on the client's end of stream.
     *
     * @return the child's descriptors at the end
     */
    private static long assertChildBackTo(FaultServer.Child child, long baseline) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        long now;
        while ((now = child.fds()) > baseline) {
            assertTrue(System.nanoTime() < deadline, "the child leaked descriptors: " + baseline
                    + " before the clients, " + now + " after they all closed");
            Thread.sleep(20);
        }
        return now;
    }

    /** Waits until a line of the child's standard error contains {@code text}. */
    private static void awaitLine(FaultServer.Child child, String text) throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        while (child.stderr.stream().noneMatch(l -> l.contains(text))) {
            assertTrue(System.nanoTime() < deadline, "no line with \"" + text + "\" from the child: "
                    + String.join("\n", child.stderr));
            Thread.sleep(20);
        }
    }

    private static void echo(FaultServer.Child child, Socket s, String what) throws IOException {
        byte[] msg = what.getBytes(StandardCharsets.US_ASCII);
        s.getOutputStream().write(msg);
        InputStream in = s.getInputStream();
        byte[] back = new byte[msg.length];
        for (int at = 0; at < back.length; ) {
            int n;
            try {
                n = in.read(back, at, back.length - at);
            } catch (java.net.SocketTimeoutException e) {
                throw new AssertionError(what + ": no echo within " + PATIENCE.toSeconds() + " s; the child has "
                        + child.fds() + " descriptors, alive " + child.process.isAlive() + ", its standard error:\n"
                        + String.join("\n", child.stderr), e);
            }
            assertTrue(n > 0, what + ": the connection ended");
            at += n;
        }
        assertArrayEquals(msg, back, what);
    }

    /** Blocking clients of the child, closed together. */
    private static final class Clients implements AutoCloseable {
        final List<Socket> open = new ArrayList<>();
        private final int port;

        Clients(int port) {
            this.port = port;
        }

        Socket add() throws IOException {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            s.setSoTimeout((int) PATIENCE.toMillis());
            open.add(s);
            return s;
        }

        @Override
        public void close() throws IOException {
            for (Socket s : open) {
                s.close();
            }
        }
    }
}
