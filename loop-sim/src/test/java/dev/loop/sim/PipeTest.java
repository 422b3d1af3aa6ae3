package dev.loop.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

class PipeTest {
    private int next;
    private int expected;

    private void put(Pipe p, int n) {
        ByteBuffer in = ByteBuffer.allocate(n);
        for (int i = 0; i < n; i++) {
            in.put((byte) (next++ * 31));
        }
        assertEquals(n, p.put(in.flip()));
        p.arrive(p.written());
    }

    private void take(Pipe p, int n) {
        ByteBuffer out = ByteBuffer.allocate(n);
        assertEquals(n, p.take(out));
        out.flip();
        while (out.hasRemaining()) {
            assertEquals((byte) (expected * 31), out.get(), "byte " + expected);
            expected++;
        }
    }

    @Test
    void growingARingWhoseBytesWrapAroundKeepsThemInOrder() {
        Pipe p = new Pipe(64 * 1024);
        put(p, 3000);  // a ring of 4 KiB
        take(p, 2500); // unread from 2500
        put(p, 3000);  // fits: wraps around the end of the ring
        put(p, 2000);  // does not fit: the ring grows, copying both runs of the wrapped bytes
        take(p, 5500);
        put(p, 20_000);
        take(p, 20_000);
        assertEquals(next, expected, "every byte came out once, in order");
        assertEquals(0, p.available());
    }
}
