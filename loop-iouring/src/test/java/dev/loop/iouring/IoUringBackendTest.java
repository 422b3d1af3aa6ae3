package dev.loop.iouring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.Promise;
import dev.loop.ProviderInfo;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** What is particular to this backend: how it is found, why it may not run, and its one thread. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class IoUringBackendTest {
    private static final LoopOptions IO_URING = LoopOptions.defaults().withBackend(IoUringBackendProvider.NAME);

    @Test
    void isFoundByServiceLoaderAndAgreesWithNettyOnWhetherItRuns() {
        ProviderInfo info = Loops.providers().stream().filter(p -> p.name().equals("io_uring")).findFirst()
                .orElseThrow(() -> new AssertionError("io_uring not discovered: " + Loops.providers()));
        IoUringBackendProvider p = new IoUringBackendProvider();
        assertEquals(io.netty.channel.uring.IoUring.isAvailable(), p.unavailabilityCause() == null);
        assertEquals(info.available(), p.unavailabilityCause() == null, String.valueOf(info.reason()));
        if (!info.available()) {
            assertNotNull(info.reason(), "an unavailable backend says why");
        }
    }

    @Test
    void aLoopMayBeOpenedOnOneThreadAndRunAndClosedOnAnother() throws Exception {
        assumeTrue(io.netty.channel.uring.IoUring.isAvailable(), "io_uring does not run here");
        Loop loop = Loops.open(IO_URING); // opened here, on the test's thread, as a loop group does
        Promise<String> answer = loop.newPromise();
        String[] got = new String[1];
        Thread runner = new Thread(() -> {
            got[0] = loop.runUntilComplete(answer);
            loop.close();
        }, "runner");
        runner.start();
        loop.callSoon(() -> answer.complete("ran on " + Thread.currentThread().getName()));
        runner.join();
        assertEquals("ran on runner", got[0]);
        assertTrue(loop.isClosed());
    }

    @Test
    void aSecondThreadIsRefusedNamingBothRatherThanWithTheRingsBareEinval() throws Exception {
        assumeTrue(io.netty.channel.uring.IoUring.isAvailable(), "io_uring does not run here");
        ExecutorService owner = Executors.newSingleThreadExecutor(r -> new Thread(r, "ring-owner"));
        try {
            IoUringDriver driver = owner.submit(() -> {
                IoUringDriver d = new IoUringDriver();
                d.poll(0);
                return d;
            }).get();
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> driver.poll(0));
            assertTrue(e.getMessage().contains("ring-owner") && e.getMessage().contains(Thread.currentThread().getName()),
                    e.getMessage());
            assertThrows(IllegalStateException.class, driver::close);
            owner.submit(driver::close).get(); // its own thread closes it
        } finally {
            owner.shutdown();
        }
    }
}
