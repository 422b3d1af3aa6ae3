package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.spi.IoReady;
import dev.loop.spi.Readiness;
import dev.loop.testing.ParkingDriver;
import dev.loop.testing.ParkingLoopProvider;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A readiness receiver that throws inside the poll: the engine is told through the handler it gave
 * the driver, and the loop's exception handler hears of it once, after the poll, while the loop
 * carries on. (The backends' side, that every driver catches it, is the test kit's
 * {@code ReceiverFailureContract}.)
 */
class ReceiverFailureTest {

    @Test
    void aReceiverThatThrowsIsReportedOnceToTheExceptionHandlerAfterThePoll() {
        Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"));
        ParkingDriver io = ParkingLoopProvider.last;
        assertNotNull(io.failures, "the engine gives its driver somewhere to report receivers' failures");
        RuntimeException boom = new IllegalStateException("receiver bug");
        List<String> handled = new ArrayList<>();
        List<Throwable> errors = new ArrayList<>();
        loop.setExceptionHandler((l, message, error, source) -> {
            handled.add(message + (io.polling ? " (inside the poll)" : ""));
            errors.add(error);
        });
        IoReady throwing = ops -> {
            throw boom;
        };
        io.dispatchOnce = () -> Readiness.deliver(throwing, IoReady.READ, "socket 7", io.failures);
        List<String> ran = new ArrayList<>();
        loop.callSoon(() -> {
            ran.add("first");
            loop.callSoon(() -> {
                ran.add("second");
                loop.callSoon(loop::stop);
            });
        });
        loop.runForever();
        loop.close();

        assertEquals(List.of("readiness receiver of socket 7 failed"), handled);
        assertSame(boom, errors.get(0));
        assertEquals(List.of("first", "second"), ran, "the loop carries on after the failure");
    }

    @Test
    void aHandlerThatThrowsTooNeverReachesThePoll() {
        IoReady throwing = ops -> {
            throw new IllegalStateException("receiver bug");
        };
        List<Throwable> seen = new ArrayList<>();
        Readiness.Failures broken = (source, failure) -> {
            seen.add(failure);
            throw new IllegalStateException("handler bug");
        };
        Readiness.deliver(throwing, IoReady.READ, "socket 8", broken); // must return normally
        assertEquals(1, seen.size());
        assertEquals("handler bug", seen.get(0).getSuppressed()[0].getMessage(),
                "the handler's own failure is kept with the receiver's, for the log");
    }

    @Test
    void nothingIsDeliveredWithoutReceiverOrBits() {
        boolean[] called = new boolean[1];
        Readiness.deliver(null, IoReady.READ, "unattached", (s, f) -> called[0] = true);
        Readiness.deliver(ops -> called[0] = true, 0, "no bits", (s, f) -> called[0] = true);
        assertFalse(called[0]);
        Readiness.deliver(ops -> called[0] = ops == IoReady.WRITE, IoReady.WRITE, "ready", (s, f) -> { });
        assertTrue(called[0]);
    }
}
