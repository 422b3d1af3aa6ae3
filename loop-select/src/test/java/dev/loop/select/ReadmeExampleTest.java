package dev.loop.select;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.Loops;
import dev.loop.Promise;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The README's ten lines, run as written, with the output checked. */
class ReadmeExampleTest {

    @Test
    void theReadmeExampleRunsAsDocumented() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(captured, true));
        try {
            try (Loop loop = Loops.open()) {                       // best available backend, heap timers
                Promise<String> answer = loop.newPromise();
                loop.callLater(Duration.ofMillis(10), () -> answer.complete("ready"));
                answer.onDone(f -> System.out.println(f.result() + " on " + loop.backendName()));
                loop.callSoon(() -> System.out.println("first"));   // FIFO, before the timer
                Thread other = new Thread(() -> loop.callSoon(() -> System.out.println("from another thread")));
                other.start();
                other.join(); // (not in the README: makes the order below deterministic)
                System.out.println(loop.runUntilComplete(answer));  // runs the loop until the future is done
            }
        } finally {
            System.setOut(original);
        }
        String out = captured.toString().replace("\r", "");
        // The other thread's callback may land before or after "first"; the rest is ordered.
        String withoutOther = out.replace("from another thread\n", "");
        assertEquals(out.length() - "from another thread\n".length(), withoutOther.length(), out);
        assertEquals("first\nready\nready on select\n", withoutOther.replace("ready on select\nready\n", "ready\nready on select\n"));
    }
}
