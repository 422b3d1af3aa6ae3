package dev.loop.testkit;

import dev.loop.Loop;
import dev.loop.LoopExceptionHandler;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The loops a test opened: closed after each test, and watched for assertions that fail inside
 * loop callbacks, where the loop would only log them and the test would pass regardless. Register
 * with {@code @RegisterExtension}.
 */
public final class OpenLoops implements AfterEachCallback {
    private final List<Loop> opened = new ArrayList<>();
    private final List<Throwable> failedInCallbacks = new CopyOnWriteArrayList<>();

    /** Opens a loop with {@code options}, to be closed after the test. */
    public Loop open(LoopOptions options) {
        Loop loop = Loops.open(options);
        LoopExceptionHandler fallback = loop.exceptionHandler();
        loop.setExceptionHandler((l, message, error, source) -> {
            if (error instanceof AssertionError) {
                failedInCallbacks.add(error);
            }
            fallback.handle(l, message, error, source);
        });
        opened.add(loop);
        return loop;
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (Loop l : opened) {
            if (!l.isRunning()) {
                l.close();
            }
        }
        opened.clear();
        if (!failedInCallbacks.isEmpty()) {
            AssertionError e = new AssertionError("an assertion failed inside a loop callback", failedInCallbacks.get(0));
            failedInCallbacks.stream().skip(1).forEach(e::addSuppressed);
            failedInCallbacks.clear();
            throw e;
        }
    }
}
