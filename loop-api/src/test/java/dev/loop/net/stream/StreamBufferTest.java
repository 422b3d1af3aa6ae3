package dev.loop.net.stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The buffer under {@code readLine}, {@code readUntil} and {@code readExactly}: delimiters found
 * within a limit only, across partial arrivals; bytes taken exactly; the array grows with what
 * arrived and shrinks back before the connection waits.
 */
class StreamBufferTest {
    private static final byte[] NL = {'\n'};

    private static ByteBuffer ascii(String s) {
        return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
    }

    private static String text(ByteBuffer b) {
        return StandardCharsets.US_ASCII.decode(b).toString();
    }

    /** As the reader searches: never past what is buffered, nor past the caller's maximum. */
    private static int find(StreamBuffer b, byte[] d, int max) {
        return b.indexOf(d, Math.min(b.size(), max));
    }

    @Test
    void aDelimiterIsFoundAcrossPartialArrivals() {
        StreamBuffer b = new StreamBuffer();
        b.append(ascii("hel"));
        assertEquals(-1, find(b, NL, 100));
        b.append(ascii("lo\nwor"));
        int i = find(b, NL, 100);
        assertEquals(5, i);
        assertEquals("hello\n", text(b.take(i + 1)));
        b.rescan();
        assertEquals(-1, find(b, NL, 100), "the rest has no delimiter yet");
        assertEquals(3, b.size());
    }

    @Test
    void aTwoByteDelimiterCutBetweenArrivalsIsFound() {
        StreamBuffer b = new StreamBuffer();
        byte[] crlf = {'\r', '\n'};
        b.append(ascii("abc\r"));
        assertEquals(-1, find(b, crlf, 100));
        b.append(ascii("\ndef"));
        assertEquals(3, find(b, crlf, 100));
    }

    @Test
    void aDelimiterBeyondTheLimitIsNotFound() {
        StreamBuffer b = new StreamBuffer();
        b.append(ascii("0123456789\n"));
        assertEquals(-1, find(b, NL, 10), "the delimiter would end at byte 11: over a limit of 10");
        b.rescan();
        assertEquals(10, find(b, NL, 11));
    }

    @Test
    void takeAndMoveToHandOverExactlyWhatWasAsked() {
        StreamBuffer b = new StreamBuffer();
        b.append(ascii("abcdefgh"));
        assertEquals("abc", text(b.take(3)));
        ByteBuffer small = ByteBuffer.allocate(2);
        assertEquals(2, b.moveTo(small));
        assertEquals("de", text(small.flip()));
        assertEquals(3, b.size());
        assertEquals("fgh", text(b.takeAll()));
        assertEquals(0, b.size());
    }

    @Test
    void unreadBytesComeBackFirst() {
        StreamBuffer b = new StreamBuffer();
        b.append(ascii("world"));
        b.unread(ascii("hello "));
        assertEquals("hello world", text(b.takeAll()));
    }

    @Test
    void growsWithWhatArrivedAndShrinksBeforeWaiting() {
        StreamBuffer b = new StreamBuffer();
        b.append(ascii("x"));
        assertTrue(b.capacity() >= StreamBuffer.MIN_CAPACITY && b.capacity() < StreamBuffer.KEEP_CAPACITY,
                "a few bytes make a small array: " + b.capacity());
        b.append(ByteBuffer.allocate(100_000));
        assertTrue(b.capacity() >= 100_001, "grown to hold what arrived: " + b.capacity());
        assertEquals(100_001, b.size());
        b.take(100_000);
        b.trim();
        assertTrue(b.capacity() <= StreamBuffer.KEEP_CAPACITY, "a large array is not kept while waiting: " + b.capacity());
        assertEquals(1, b.size(), "the byte still buffered survives the shrink");
        assertEquals(0, b.takeAll().get());
    }
}
