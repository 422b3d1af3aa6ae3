package dev.loop.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.IoHandle;
import io.netty.channel.IoHandler;
import io.netty.channel.IoHandlerContext;
import io.netty.channel.IoRegistration;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The executor Netty is given: which thread is the loop's, and when deferred work runs. */
class LoopThreadExecutorTest {

    @Test
    void deferredWorkWakesTheDriverAndRunsOnlyAtItsNextPoll() throws Exception {
        AtomicInteger wakeups = new AtomicInteger();
        LoopThreadExecutor executor = new LoopThreadExecutor(wakeups::incrementAndGet);
        executor.enter();
        assertTrue(executor.isExecutorThread(Thread.currentThread()));
        List<String> ran = new ArrayList<>();
        Thread other = new Thread(() -> executor.execute(() -> ran.add("deferred")));
        other.start();
        other.join();
        assertFalse(executor.isExecutorThread(other));
        assertEquals(1, wakeups.get());
        assertTrue(ran.isEmpty(), "nothing runs on the submitting thread");
        executor.runPending();
        assertEquals(List.of("deferred"), ran);
    }

    @Test
    void theOwnerIsWhicheverThreadEnteredLast() throws Exception {
        LoopThreadExecutor executor = new LoopThreadExecutor(() -> { });
        Thread[] entered = new Thread[1];
        Thread other = new Thread(() -> {
            executor.enter();
            entered[0] = Thread.currentThread();
        });
        other.start();
        other.join();
        assertTrue(executor.isExecutorThread(entered[0]));
        assertFalse(executor.isExecutorThread(Thread.currentThread()));
    }

    @Test
    void aRegistrationThatFailsIsAnIOExceptionNamingTheBackend() {
        Exception checked = new Exception("refused");
        IoHandler failing = new IoHandler() {
            @Override
            public int run(IoHandlerContext context) {
                return 0;
            }

            @Override
            public IoRegistration register(IoHandle handle) throws Exception {
                throw checked;
            }

            @Override
            public void wakeup() {
            }

            @Override
            public boolean isCompatible(Class<? extends IoHandle> handleType) {
                return true;
            }
        };
        IoHandle handle = new IoHandle() {
            @Override
            public void handle(IoRegistration registration, io.netty.channel.IoEvent ioEvent) {
            }

            @Override
            public void close() {
            }

            @Override
            public String toString() {
                return "handle 3";
            }
        };
        IOException e = assertThrows(IOException.class, () -> LoopThreadExecutor.register(failing, handle, "test"));
        assertEquals("registering handle 3 with test failed", e.getMessage());
        assertSame(checked, e.getCause());
    }
}
