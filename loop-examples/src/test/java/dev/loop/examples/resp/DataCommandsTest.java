package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ManualClock;
import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The typed keyspace on a loop whose clocks (monotonic and wall) only move when told: absolute
 * expiry against the wall clock, blocking pops and their timeouts on loop timers, SCAN's
 * guarantee while the table grows, and what a client cannot make the server build or compute.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DataCommandsTest {
    /** The wall clock's reading when the manual clock reads 0: some Unix time in 2026. */
    private static final long EPOCH_MS = 1_780_000_000_000L;
    private final ManualClock clock = ManualClock.create();
    private final Loop loop = Loops.open(LoopOptions.defaults().withBackend("select").withClock(clock));
    private final long start = clock.nanoTime();
    private Commands commands;
    private final OutputBuffer out = new OutputBuffer(256);
    private final Session session = new Session(1);

    DataCommandsTest() {
        onLoop(() -> commands = new Commands(new Keyspace[] {
            new Keyspace(loop, () -> EPOCH_MS + (clock.nanoTime() - start) / 1_000_000)},
                Map.of("proto-max-bulk-len", Integer.toString(1 << 20))));
    }

    @AfterEach
    void close() {
        loop.close();
    }

    private String call(String... args) {
        return call(session, out, args);
    }

    private String call(Session s, OutputBuffer o, String... args) {
        String[] reply = new String[1];
        onLoop(() -> {
            byte[][] argv = Stream.of(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
            o.reset();
            commands.execute(argv, s, o);
            reply[0] = new String(o.toByteArray(), StandardCharsets.UTF_8);
        });
        return reply[0];
    }

    private void onLoop(Runnable r) {
        loop.callSoon(r);
        loop.stop();
        loop.runForever();
    }

    private void advance(Duration d) {
        clock.advance(d);
        for (int i = 0; i < 100; i++) {
            loop.stop();
            loop.runForever();
        }
    }

    @Test
    void absoluteExpiryIsTheWallClocksAndItsTimerTheLoops() {
        long in10s = EPOCH_MS / 1000 + 10;
        call("SET", "k", "v");
        assertEquals(":1\r\n", call("EXPIREAT", "k", Long.toString(in10s)));
        assertEquals(":" + in10s + "\r\n", call("EXPIRETIME", "k"), "answered exactly as set");
        assertEquals(":" + in10s * 1000 + "\r\n", call("PEXPIRETIME", "k"));
        assertEquals(":10000\r\n", call("PTTL", "k"));
        advance(Duration.ofMillis(9_999));
        assertEquals("$1\r\nv\r\n", call("GET", "k"));
        advance(Duration.ofMillis(1));
        assertEquals(":0\r\n", call("DBSIZE"), "the loop timer deleted it at the wall-clock deadline");
        call("SET", "p", "v", "PXAT", Long.toString(EPOCH_MS + 10_000 + 250));
        assertEquals(":250\r\n", call("PTTL", "p"));
        assertEquals("+OK\r\n", call("SET", "q", "v", "EXAT", Long.toString(EPOCH_MS / 1000)));
        assertEquals(":0\r\n", call("EXISTS", "q"), "a time already past deletes the key at once");
    }

    @Test
    void aKeyDueBeyondTheTimersReachKeepsItsExactDeadline() {
        call("SET", "k", "v");
        String far = Long.toString(Long.MAX_VALUE / 1000 - 1); // some 292 million years away
        assertEquals(":1\r\n", call("EXPIREAT", "k", far));
        assertEquals(":" + far + "\r\n", call("EXPIRETIME", "k"));
        long ttl = Long.parseLong(call("TTL", "k").substring(1).strip());
        assertTrue(ttl > Keyspace.MAX_TIMER_MS / 1000, "TTL from the wall-clock deadline, not the capped timer: " + ttl);
    }

    @Test
    void blockedPopsAreServedInArrivalOrderAndTimeOutOnLoopTimers() {
        Session a = new Session(2);
        Session b = new Session(3);
        OutputBuffer aOut = new OutputBuffer(64);
        OutputBuffer bOut = new OutputBuffer(64);
        AtomicInteger resumed = new AtomicInteger();
        assertEquals("", call(a, new OutputBuffer(16), "BLPOP", "k", "5"), "blocked: no reply yet");
        assertNotNull(a.blocked);
        a.blocked.attach(aOut, resumed::incrementAndGet);
        assertEquals("", call(b, new OutputBuffer(16), "BRPOP", "k", "0"));
        b.blocked.attach(bOut, resumed::incrementAndGet);
        assertEquals(2, commands.blocking().blockedClients());

        advance(Duration.ofMillis(4_999));
        assertEquals(0, resumed.get());
        advance(Duration.ofMillis(1));
        assertEquals("*-1\r\n", new String(aOut.toByteArray(), StandardCharsets.UTF_8), "timed out: the null array");
        assertEquals(1, resumed.get());
        assertNull(a.blocked);

        advance(Duration.ofDays(1));
        assertEquals(1, commands.blocking().blockedClients(), "timeout 0 waits for ever");
        assertEquals(":2\r\n", call("RPUSH", "k", "x", "y"));
        assertEquals("*2\r\n$1\r\nk\r\n$1\r\ny\r\n", new String(bOut.toByteArray(), StandardCharsets.UTF_8));
        advance(Duration.ZERO); // the batch resumes in a callback of its own, after the push's command
        assertEquals(2, resumed.get());
        assertEquals("*1\r\n$1\r\nx\r\n", call("LRANGE", "k", "0", "-1"), "one element per waiter");
        assertEquals(0, loop.diagnostics().pendingTimers(), "no timer left behind");
    }

    @Test
    void aCancelledWaiterIsForgottenWithItsTimer() {
        Session a = new Session(2);
        call(a, new OutputBuffer(16), "BLPOP", "k", "100");
        a.blocked.attach(new OutputBuffer(16), () -> {
            throw new AssertionError("a cancelled waiter is not resumed");
        });
        onLoop(() -> commands.blocking().cancel(a));
        assertEquals(0, commands.blocking().blockedClients());
        assertEquals(0, loop.diagnostics().pendingTimers());
        call("RPUSH", "k", "v");
        assertEquals(":1\r\n", call("LLEN", "k"), "nobody took it");
    }

    @Test
    void whereBlockingIsDeniedAnEmptyListAnswersAtOnceAsATimeout() {
        session.denyBlocking = true; // as in a transaction; redis-server answers these bytes inside EXEC
        assertEquals("*-1\r\n", call("BLPOP", "k", "0"));
        assertEquals("$-1\r\n", call("BLMOVE", "k", "d", "LEFT", "LEFT", "0"));
        assertNull(session.blocked);
        assertEquals(0, commands.blocking().blockedClients());
    }

    @Test
    void getSetAndListPushPopAllocateNothingPerCommand() {
        byte[][][] cmds = Stream.of("SET k v", "GET k", "LPUSH l x", "RPOP l", "EXISTS k")
                .map(c -> Stream.of(c.split(" ")).map(a -> a.getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new))
                .toArray(byte[][][]::new);
        call("RPUSH", "l", "keep"); // the list stays, so no command creates or deletes it
        long[] allocated = new long[1];
        onLoop(() -> {
            com.sun.management.ThreadMXBean threads =
                    (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            for (int round = 0; round < 2; round++) { // the first warms up
                long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    for (byte[][] c : cmds) {
                        out.reset();
                        commands.execute(c, session, out);
                    }
                }
                allocated[0] = threads.getCurrentThreadAllocatedBytes() - before;
            }
        });
        assertTrue(allocated[0] < 100_000 * 2, "100,000 commands allocated " + allocated[0] + " bytes");
    }

    @Test
    void scanReturnsEveryKeyPresentThroughoutWhileTheTableGrows() {
        Set<String> original = new HashSet<>();
        for (int i = 0; i < 200; i++) {
            call("SET", "orig" + i, "v");
            original.add("orig" + i);
        }
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int calls = 0;
        int added = 0;
        do {
            String reply = call("SCAN", cursor, "COUNT", "7");
            String[] parts = reply.split("\r\n");
            cursor = parts[2];
            for (int i = 5; i < parts.length; i += 2) { // *2, $n, cursor, *k, then $len and key pairs
                seen.add(parts[i]);
            }
            for (int i = 0; i < 150 && calls < 20; i++) { // 3000 keys: the table doubles during the walk
                call("SET", "new" + added++, "v");
            }
            call("DEL", "new" + (added - 3));
            calls++;
        } while (!cursor.equals("0") && calls < 10_000);
        assertEquals("0", cursor, "the walk ends");
        assertTrue(seen.containsAll(original), "missing: " + original.stream().filter(k -> !seen.contains(k)).toList());
    }

    @Test
    void aDeclaredLengthIsRefusedBeforeAnythingIsAllocated() {
        String tooBig = "-" + StringEditCommands.TOO_BIG + "\r\n";
        assertEquals(tooBig, call("SETRANGE", "k", Integer.toString(1 << 20), "x"), "past the max bulk length");
        assertEquals(":0\r\n", call("EXISTS", "k"));
        assertEquals(":" + (1 << 20) + "\r\n", call("SETRANGE", "k", Integer.toString((1 << 20) - 1), "x"));
        assertEquals(tooBig, call("APPEND", "k", "y"));
        call("SADD", "s", "m");
        assertEquals("-ERR count is out of the range this server answers (at most " + SetCommands.MAX_PICKS
                + " members with repetition)\r\n", call("SRANDMEMBER", "s", "-" + (SetCommands.MAX_PICKS + 1)));
        assertTrue(call("SRANDMEMBER", "s", "-3").startsWith("*3\r\n"));
    }

    @Test
    void emptiedAggregatesAreDeletedAndWrongTypesRefused() {
        call("HSET", "h", "f", "v");
        call("RPUSH", "l", "a");
        call("SADD", "s", "m");
        call("HDEL", "h", "f");
        call("LPOP", "l");
        call("SREM", "s", "m");
        assertEquals(":0\r\n", call("DBSIZE"));
        call("SET", "str", "v");
        String wrong = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
        for (String[] c : new String[][] {{"HSET", "str", "f", "v"}, {"LPUSH", "str", "a"}, {"SADD", "str", "m"},
            {"BLPOP", "str", "0"}}) {
            assertEquals(wrong, call(c), String.join(" ", c));
        }
        call("LPUSH", "l", "a");
        assertEquals(wrong, call("GET", "l"));
        assertEquals(wrong, call("INCR", "l"));
        assertEquals("$-1\r\n", call("MGET", "l").substring(4), "MGET answers null for another type");
    }

    @Test
    void resp3FormsOfTheTypedReplies() {
        session.reply.protocol(3);
        call("HSET", "h", "f", "v");
        call("SADD", "s", "1", "2");
        assertEquals("%1\r\n$1\r\nf\r\n$1\r\nv\r\n", call("HGETALL", "h"));
        assertEquals("~2\r\n$1\r\n1\r\n$1\r\n2\r\n", call("SMEMBERS", "s"));
        assertEquals("_\r\n", call("LPOP", "nolist"));
        assertEquals("_\r\n", call("LPOP", "nolist", "2"));
        assertEquals("$3\r\n0.3\r\n", call("INCRBYFLOAT", "f", "0.3"), "a bulk string in RESP3 too, as Redis");
    }
}
