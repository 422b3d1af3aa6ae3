package dev.loop.examples;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.testkit.Fds;
import dev.loop.testkit.LogCapture;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.time.Duration;
import java.util.List;

/**
 * What a server holds while hostile peers work on it, for the adversarial tests: live heap after
 * a collection (the servers run in the test's JVM, so their buffers are in this heap), open
 * descriptors, and the lines logged above DEBUG.
 */
public final class Footprint {
    private Footprint() {
    }

    /** Bytes of heap in use after full collections: what is still reachable, give or take. */
    public static long liveHeap() {
        var memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) { // the first collection may leave what finalization or a cleaner frees next
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /** Fails unless the heap in use is within {@code bound} bytes of {@code baseline}. */
    public static void assertHeapWithin(long baseline, long bound, String what) {
        long grown = liveHeap() - baseline;
        assertTrue(grown < bound, what + ": live heap grew by " + grown / 1024 + " KiB, more than the "
                + bound / 1024 + " KiB allowed");
    }

    /** Waits until no more descriptors are open than {@code baseline}; fails naming the count if that takes too long. */
    public static void awaitDescriptors(long baseline, Duration deadline) throws InterruptedException {
        long end = System.nanoTime() + deadline.toNanos();
        long now = Fds.count();
        while (now > baseline && System.nanoTime() - end < 0) {
            Thread.sleep(20); // polling the server's closes, which have no event a test can wait on
            now = Fds.count();
        }
        assertTrue(now <= baseline, "descriptors: " + now + " open, " + baseline + " before the peers came");
    }

    /** Lines captured at INFO, WARNING or ERROR (SEVERE): what an operator would see. */
    public static List<String> loudLines(LogCapture log) {
        return log.text().lines().filter(l -> l.startsWith("INFO") || l.startsWith("WARNING") || l.startsWith("SEVERE"))
                .toList();
    }

    /** Closes every socket, ignoring failures: the peer may have been reset by the server already. */
    public static void closeAll(List<Socket> sockets) {
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException e) {
                // closing is all that is asked; a reset socket closes too
            }
        }
    }
}
