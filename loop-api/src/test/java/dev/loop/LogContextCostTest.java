package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.log.LogContext;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * A record's context is built only for a record that is written: with the level off, what the
 * record would be about is not even asked to describe itself (so nothing is allocated for it).
 */
class LogContextCostTest {

    @Test
    void theContextIsBuiltOnlyWhenTheRecordIsWritten() {
        Logger jul = Logger.getLogger("dev.loop");
        Level previous = jul.getLevel();
        List<String> written = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                written.add(r.getMessage());
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        AtomicInteger described = new AtomicInteger();
        LogContext.Subject subject = c -> {
            described.incrementAndGet();
            c.task("Task-42");
        };
        jul.addHandler(capture);
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("park"))) {
            jul.setLevel(Level.OFF);
            loop.callExceptionHandler("off", new IllegalStateException("not written"), subject);
            assertEquals(0, described.get(), "described for a record nobody writes");
            assertEquals(List.of(), written);

            jul.setLevel(Level.ALL);
            loop.callExceptionHandler("on", new IllegalStateException("written"), subject);
            assertEquals(1, described.get());
            assertEquals(List.of("[" + loop.name() + " task=Task-42] on"), written);
        } finally {
            jul.removeHandler(capture);
            jul.setLevel(previous);
        }
    }
}
