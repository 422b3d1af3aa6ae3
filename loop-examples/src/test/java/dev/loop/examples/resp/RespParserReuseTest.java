package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.InputBuffer;
import dev.loop.examples.io.OutputBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the parser reuses so that a steady stream of commands allocates nothing but the values
 * stored, and what it must never reuse: a batch's arrays are handed out again only after
 * {@link RespParser#newBatch()}, never to two commands of one batch, never to a command still in
 * progress, and never to a transaction's queue.
 */
class RespParserReuseTest {
    private final RespParser parser = new RespParser(1024, 1 << 20, 1 << 24);
    private final InputBuffer in = new InputBuffer();

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> strings(byte[][] argv) {
        return Stream.of(argv).map(a -> new String(a, StandardCharsets.ISO_8859_1)).toList();
    }

    /** The commands complete once {@code bytes} arrive (one read). */
    private List<byte[][]> read(String bytes) throws ProtocolError {
        in.append(ByteBuffer.wrap(ascii(bytes)));
        List<byte[][]> l = new ArrayList<>();
        for (byte[][] argv = parser.next(in); argv != null; argv = parser.next(in)) {
            l.add(argv);
        }
        return l;
    }

    @Test
    void aBatchsArraysServeTheNextBatchButNoTwoCommandsOfOne() throws ProtocolError {
        List<byte[][]> first = read("*2\r\n$3\r\nGET\r\n$1\r\na\r\n*2\r\n$3\r\nGET\r\n$1\r\nb\r\nPING x\r\n");
        assertNotSame(first.get(0), first.get(1));
        assertEquals(List.of("GET", "a"), strings(first.get(0)), "the first command, after the second was parsed");
        assertEquals(List.of("GET", "b"), strings(first.get(1)));
        assertNotSame(first.get(1), first.get(2), "an inline command takes from the same pool");

        parser.newBatch();
        List<byte[][]> second = read("*2\r\n$3\r\nGET\r\n$1\r\nc\r\n");
        assertSame(first.get(0), second.get(0), "the last batch's array is handed out again");
        assertEquals(List.of("GET", "c"), strings(second.get(0)));
    }

    @Test
    void aCommandInProgressAcrossBatchesKeepsItsArguments() throws ProtocolError {
        assertEquals(List.of(), read("*3\r\n$3\r\nSET\r\n$1\r\na\r\n"));
        parser.newBatch(); // the batch before ends with SET a half read
        List<byte[][]> got = read("$1\r\n1\r\n*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$1\r\n2\r\n");
        assertEquals(2, got.size());
        assertEquals(List.of("SET", "a", "1"), strings(got.get(0)));
        assertEquals(List.of("SET", "b", "2"), strings(got.get(1)));
    }

    @Test
    void theNameOfAKnownCommandIsSharedInLowerOrUpperCaseAndCopiedOtherwise() throws ProtocolError {
        List<byte[][]> got = read("*1\r\n$4\r\nPING\r\nPING\r\n*1\r\n$4\r\nping\r\nping\r\n*1\r\n$4\r\nPiNg\r\n"
                + "*1\r\n$4\r\nPiNg\r\n*1\r\n$4\r\nNOPE\r\n*1\r\n$4\r\nNOPE\r\n");
        assertSame(got.get(0)[0], got.get(1)[0]);
        assertSame(got.get(2)[0], got.get(3)[0]);
        assertArrayEquals(ascii("PiNg"), got.get(4)[0], "the name as sent");
        assertNotSame(got.get(4)[0], got.get(5)[0]);
        assertNotSame(got.get(6)[0], got.get(7)[0], "an unknown name is a copy");
    }

    @Test
    void theKeyOfASingleKeyCommandIsReusedButNeverAValueNorALongKey() throws ProtocolError {
        String longKey = "k".repeat(RespParser.MAX_CACHED_KEY + 1);
        List<byte[][]> got = read("SET k v\r\nSET k v\r\nGET k\r\nMSET k v\r\nMSET k v\r\nSET " + longKey + " v\r\n"
                + "GET " + longKey + "\r\nSET other v\r\n");
        assertSame(got.get(0)[1], got.get(1)[1], "the key");
        assertSame(got.get(0)[1], got.get(2)[1], "the same key of another command");
        assertNotSame(got.get(0)[2], got.get(1)[2], "a value");
        assertNotSame(got.get(3)[1], got.get(4)[1], "a key of a command of many keys");
        assertNotSame(got.get(5)[1], got.get(6)[1], "a key longer than the cache takes");
        assertEquals(List.of("SET", "other", "v"), strings(got.get(7)));
        assertEquals(List.of("SET", "k", "v"), strings(got.get(0)), "the first command, after all the others");
    }

    @Test
    void aTransactionQueuedOverManyBatchesRunsEveryCommandItQueued() throws ProtocolError {
        Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"));
        try {
            Commands commands = new Commands(new Keyspace[] {new Keyspace(loop)}, Map.of());
            Session session = new Session(1);
            OutputBuffer out = new OutputBuffer(256);
            List<String> replies = new ArrayList<>();
            for (String batch : new String[] {"MULTI\r\n", "SET a 1\r\n", "SET b 2\r\n", "EXEC\r\n", "GET a\r\n"}) {
                parser.newBatch(); // as the connection does before each batch: the last one's arrays are free again
                for (byte[][] argv : read(batch)) {
                    out.reset();
                    onLoop(loop, () -> commands.execute(argv, session, out));
                    replies.add(new String(out.toByteArray(), StandardCharsets.US_ASCII));
                }
            }
            assertEquals(List.of("+OK\r\n", "+QUEUED\r\n", "+QUEUED\r\n", "*2\r\n+OK\r\n+OK\r\n", "$1\r\n1\r\n"), replies);
        } finally {
            loop.close();
        }
    }

    private static void onLoop(Loop loop, Runnable r) {
        loop.callSoon(r);
        loop.stop();
        loop.runForever();
    }
}
