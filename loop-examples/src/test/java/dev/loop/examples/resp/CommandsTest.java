package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.ManualClock;
import dev.loop.examples.io.OutputBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The commands and the keyspace on a loop whose clock only moves when told: TTLs are loop timers,
 * created, replaced and cancelled as keys are set, overwritten and deleted, on every timer strategy.
 */
class CommandsTest {
    private final ManualClock clock = ManualClock.create();
    private Loop loop;
    private Commands commands;
    private final OutputBuffer out = new OutputBuffer(256);
    private final Session session = new Session(1);

    private void open(String timers) {
        loop = Loops.open(LoopOptions.defaults().withBackend("select").withTimers(timers).withClock(clock));
        commands = new Commands(new Keyspace[] {new Keyspace(loop), new Keyspace(loop)},
                Map.of("save", "", "appendonly", "no"));
    }

    @AfterEach
    void close() {
        if (loop != null) {
            loop.close();
        }
    }

    /** Runs a command on the loop's thread, as the server does, and returns its encoded reply. */
    private String call(String... args) {
        String[] reply = new String[1];
        onLoop(() -> reply[0] = callHere(args));
        return reply[0];
    }

    private String callHere(String... args) {
        byte[][] argv = Stream.of(args).map(a -> a.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
        out.reset();
        commands.execute(argv, session, out);
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }

    /** Runs {@code r} in one iteration of the loop (which may also run timers already due). */
    private void onLoop(Runnable r) {
        loop.callSoon(r);
        loop.stop();
        loop.runForever();
    }

    /** Runs loop iterations until the timers due have all run (each iteration runs a bounded number). */
    private void runDueTimers() {
        for (int i = 0; i < 100_000; i++) {
            int before = timers();
            loop.stop();
            loop.runForever();
            if (timers() == before && loop.diagnostics().readyCallbacks() == 0) {
                return;
            }
        }
        throw new AssertionError("timers still firing after 100000 iterations");
    }

    private int timers() {
        return loop.diagnostics().pendingTimers();
    }

    static Stream<String> timerStrategies() {
        return dev.loop.testkit.Matrix.timerQueues();
    }

    @ParameterizedTest
    @MethodSource("timerStrategies")
    void aKeyWithATtlIsATimerThatDeletesItWhenDue(String timers) {
        open(timers);
        assertEquals("+OK\r\n", call("SET", "k", "v", "PX", "100"));
        assertEquals(1, timers());
        assertEquals(":100\r\n", call("PTTL", "k"));
        assertEquals(":0\r\n", call("TTL", "k"));
        clock.advance(Duration.ofMillis(99));
        runDueTimers();
        assertEquals("$1\r\nv\r\n", call("GET", "k"));
        clock.advance(Duration.ofMillis(1));
        runDueTimers();
        assertEquals(":0\r\n", call("DBSIZE"), "the timer removed the key without anyone asking for it");
        assertEquals(0, timers());
        assertEquals("$-1\r\n", call("GET", "k"));
        assertEquals(":-2\r\n", call("TTL", "k"));
    }

    @ParameterizedTest
    @MethodSource("timerStrategies")
    void overwritingDeletingAndPersistingCancelTheTimer(String timers) {
        open(timers);
        call("SET", "a", "1", "EX", "10");
        call("SET", "b", "1", "EX", "10");
        call("SET", "c", "1", "EX", "10");
        call("SET", "d", "1", "EX", "10");
        assertEquals(4, timers());
        assertEquals("+OK\r\n", call("SET", "a", "2"));
        assertEquals(":-1\r\n", call("TTL", "a"));
        assertEquals(":1\r\n", call("DEL", "b"));
        assertEquals(":1\r\n", call("PERSIST", "c"));
        assertEquals(1, timers(), "only d keeps a timer");
        assertEquals("+OK\r\n", call("SET", "d", "2", "KEEPTTL"));
        assertEquals(":10\r\n", call("TTL", "d"));
        assertEquals(":1\r\n", call("EXPIRE", "d", "20"));
        assertEquals(1, timers(), "a new TTL replaces the timer");
        assertEquals(":3\r\n", call("INCR", "a"));
        assertEquals(":1\r\n", call("EXPIRE", "a", "5"));
        assertEquals(":4\r\n", call("INCR", "a"));
        assertEquals(":5\r\n", call("TTL", "a"), "INCR keeps the TTL");
        assertEquals("+OK\r\n", call("MSET", "a", "x", "d", "y"));
        assertEquals(0, timers(), "MSET drops TTLs");
        call("SET", "e", "1", "EX", "10");
        assertEquals("+OK\r\n", call("FLUSHALL"));
        assertEquals(0, timers());
        clock.advance(Duration.ofSeconds(30));
        runDueTimers();
        assertEquals(":0\r\n", call("DBSIZE"));
    }

    @ParameterizedTest
    @MethodSource("timerStrategies")
    void aKeyPastItsDeadlineIsGoneEvenBeforeItsTimerRuns(String timers) {
        open(timers);
        call("SET", "k", "v", "PX", "5");
        clock.advance(Duration.ofMillis(5)); // no iteration: the timer has not run
        assertEquals("$-1\r\n", call("GET", "k"));
        assertEquals(0, timers(), "the lazy expiry cancelled the timer too");
        assertEquals(":0\r\n", call("EXISTS", "k"));
    }

    @ParameterizedTest
    @MethodSource("timerStrategies")
    void manyKeysWithTtlsAllExpireThroughTheLoop(String timers) {
        open(timers);
        int n = 100_000;
        onLoop(() -> {
            for (int i = 0; i < n; i++) {
                callHere("SET", "key:" + i, "v", "PX", Integer.toString(1 + i % 1000));
            }
        });
        assertEquals(n, timers());
        onLoop(() -> {
            for (int i = 0; i < n; i += 2) {
                callHere("DEL", "key:" + i);
            }
        });
        assertEquals(n / 2, timers(), "DEL cancelled half the timers");
        clock.advance(Duration.ofMillis(500));
        runDueTimers();
        int left = Integer.parseInt(call("DBSIZE").substring(1).trim());
        assertTrue(left > 0 && left < n / 2, "some expired, some not yet: " + left);
        clock.advance(Duration.ofSeconds(1));
        runDueTimers();
        assertEquals(":0\r\n", call("DBSIZE"));
        assertEquals(0, timers());
    }

    @Test
    void setOptionsFollowRedis() {
        open("heap");
        assertEquals("$-1\r\n", call("SET", "k", "v", "XX"));
        assertEquals("+OK\r\n", call("SET", "k", "v", "NX"));
        assertEquals("$-1\r\n", call("SET", "k", "w", "NX"));
        assertEquals("$1\r\nv\r\n", call("SET", "k", "w", "GET"));
        assertEquals("$1\r\nw\r\n", call("SET", "k", "x", "XX", "GET"));
        assertEquals("-ERR syntax error\r\n", call("SET", "k", "v", "NX", "XX"));
        assertEquals("-ERR syntax error\r\n", call("SET", "k", "v", "EX", "1", "PX", "1"));
        assertEquals("-ERR syntax error\r\n", call("SET", "k", "v", "KEEPTTL", "EX", "1"));
        assertEquals("-ERR syntax error\r\n", call("SET", "k", "v", "EX"));
        assertEquals("-ERR syntax error\r\n", call("SET", "k", "v", "FOREVER"));
        assertEquals("-ERR value is not an integer or out of range\r\n", call("SET", "k", "v", "EX", "soon"));
        assertEquals("-ERR invalid expire time in 'set' command\r\n", call("SET", "k", "v", "EX", "0"));
        assertEquals("-ERR invalid expire time in 'set' command\r\n", call("SET", "k", "v", "PX", "-5"));
        assertEquals("-ERR invalid expire time in 'set' command\r\n",
                call("SET", "k", "v", "EX", Long.toString(Long.MAX_VALUE / 1000)));
        assertEquals("$1\r\nx\r\n", call("GET", "k"), "a refused SET changes nothing");
        assertEquals(0, timers());
    }

    @Test
    void countersAndTheirErrors() {
        open("heap");
        assertEquals(":1\r\n", call("INCR", "n"));
        assertEquals(":-9\r\n", call("DECRBY", "n", "10"));
        assertEquals(":-10\r\n", call("DECR", "n"));
        assertEquals(":0\r\n", call("INCRBY", "n", "10"));
        call("SET", "n", Long.toString(Long.MAX_VALUE));
        assertEquals("-ERR increment or decrement would overflow\r\n", call("INCR", "n"));
        assertEquals("-ERR decrement would overflow\r\n", call("DECRBY", "n", Long.toString(Long.MIN_VALUE)));
        for (String bad : new String[] {"abc", " 1", "+1", "01", "-0", "1.5", "", "99999999999999999999"}) {
            call("SET", "s", bad);
            assertEquals("-ERR value is not an integer or out of range\r\n", call("INCR", "s"), "'" + bad + "'");
        }
        assertEquals("-ERR value is not an integer or out of range\r\n", call("INCRBY", "n", "x"));
        call("SET", "m", Long.toString(Long.MIN_VALUE));
        assertEquals(":" + (Long.MIN_VALUE + 1) + "\r\n", call("INCR", "m"));
    }

    @Test
    void expireOptionsAndEdges() {
        open("heap");
        assertEquals(":0\r\n", call("EXPIRE", "missing", "10"));
        call("SET", "k", "v");
        assertEquals(":0\r\n", call("EXPIRE", "k", "10", "XX"));
        assertEquals(":1\r\n", call("EXPIRE", "k", "10", "NX"));
        assertEquals(":0\r\n", call("EXPIRE", "k", "20", "NX"));
        assertEquals(":0\r\n", call("EXPIRE", "k", "5", "GT"));
        assertEquals(":1\r\n", call("EXPIRE", "k", "20", "GT"));
        assertEquals(":1\r\n", call("PEXPIRE", "k", "1500", "LT"));
        assertEquals(":1500\r\n", call("PTTL", "k"));
        assertEquals(":2\r\n", call("TTL", "k"), "seconds round to nearest, as Redis does");
        assertEquals("-ERR NX and XX, GT or LT options at the same time are not compatible\r\n",
                call("EXPIRE", "k", "1", "NX", "GT"));
        assertEquals("-ERR GT and LT options at the same time are not compatible\r\n", call("EXPIRE", "k", "1", "GT", "LT"));
        assertEquals("-ERR Unsupported option SOON\r\n", call("EXPIRE", "k", "1", "SOON"));
        assertEquals("-ERR invalid expire time in 'expire' command\r\n",
                call("EXPIRE", "k", Long.toString(Long.MAX_VALUE)));
        assertEquals(":1\r\n", call("EXPIRE", "k", "0"));
        assertEquals(":0\r\n", call("EXISTS", "k"), "a TTL already past deletes the key");
        assertEquals(0, timers());
    }

    @Test
    void housekeepingAndErrorsReadLikeRedis() {
        open("heap");
        assertEquals("+PONG\r\n", call("ping"));
        assertEquals("$2\r\nhi\r\n", call("PING", "hi"));
        assertEquals("-ERR wrong number of arguments for 'ping' command\r\n", call("PING", "a", "b"));
        assertEquals("-ERR wrong number of arguments for 'get' command\r\n", call("GET"));
        assertEquals("-ERR wrong number of arguments for 'mset' command\r\n", call("MSET", "a", "1", "b"));
        assertEquals("-ERR unknown command 'NOPE', with args beginning with: 'x' 'y' \r\n", call("NOPE", "x", "y"));
        assertEquals("-ERR unknown command 'NOPE', with args beginning with: \r\n", call("NOPE"));
        assertEquals("+OK\r\n", call("SELECT", "0"));
        assertEquals("-ERR DB index is out of range\r\n", call("SELECT", "2"));
        assertEquals("-ERR DB index is out of range\r\n", call("SELECT", "-1"));
        assertEquals(":" + CommandTable.ALL.size() + "\r\n", call("COMMAND", "COUNT"));
        assertEquals("*0\r\n", call("COMMAND", "DOCS", "nosuch"), "unknown names are left out");
        String summary = CommandDocs.of("get").summary();
        assertEquals("*2\r\n$3\r\nget\r\n*6\r\n$7\r\nsummary\r\n$" + summary.length() + "\r\n" + summary
                + "\r\n$5\r\nsince\r\n$5\r\n1.0.0\r\n$5\r\ngroup\r\n$6\r\nstring\r\n", call("COMMAND", "DOCS", "get"));
        assertTrue(call("COMMAND", "DOCS").startsWith("*" + 2 * CommandTable.ALL.size() + "\r\n"), "every command");
        assertTrue(call("COMMAND", "INFO", "get").startsWith("*1\r\n*10\r\n$3\r\nget\r\n:2\r\n"));
        assertEquals("*2\r\n$4\r\nsave\r\n$0\r\n\r\n", call("CONFIG", "GET", "save"));
        assertEquals("*4\r\n$4\r\nsave\r\n$0\r\n\r\n$10\r\nappendonly\r\n$2\r\nno\r\n", call("CONFIG", "GET", "sa*", "*only"));
        assertEquals("*2\r\n$4\r\nsave\r\n$0\r\n\r\n", call("CONFIG", "GET", "S[A-B]VE"), "without case, classes too");
        assertEquals("-ERR wrong number of arguments for 'config|get' command\r\n", call("CONFIG", "GET"));
        boolean[] closes = new boolean[2];
        onLoop(() -> {
            closes[0] = commands.execute(new byte[][] {"QUIT".getBytes(StandardCharsets.US_ASCII)}, session, out);
            closes[1] = commands.execute(new byte[][] {"PING".getBytes(StandardCharsets.US_ASCII)}, session, out);
        });
        assertTrue(closes[0], "QUIT closes");
        assertFalse(closes[1]);
    }

    @Test
    void eachDatabaseHasItsOwnKeysAndFlushDbClearsOnlyTheSelectedOne() {
        open("heap");
        assertEquals("+OK\r\n", call("SET", "k", "zero"));
        assertEquals("+OK\r\n", call("SELECT", "1"));
        assertEquals("$-1\r\n", call("GET", "k"));
        assertEquals("+OK\r\n", call("SET", "k", "one"));
        assertEquals("+OK\r\n", call("FLUSHDB"));
        assertEquals(":0\r\n", call("DBSIZE"));
        assertEquals("+OK\r\n", call("SELECT", "0"));
        assertEquals("$4\r\nzero\r\n", call("GET", "k"));
        assertEquals("+OK\r\n", call("SELECT", "1"));
        assertEquals("+OK\r\n", call("SET", "k", "one"));
        assertEquals("+OK\r\n", call("FLUSHALL"));
        assertEquals(":0\r\n", call("DBSIZE"));
        assertEquals("+OK\r\n", call("SELECT", "0"));
        assertEquals(":0\r\n", call("DBSIZE"));
    }

    @Test
    void repliesTakeTheRespThreeFormWhereItHasOne() {
        Reply r = new Reply();
        OutputBuffer buf = new OutputBuffer(64);
        r.to(buf);
        r.nullBulk();
        r.mapHeader(2);
        r.bool(true);
        r.doubleValue(1.5);
        r.protocol(3);
        r.nullBulk();
        r.mapHeader(2);
        r.bool(true);
        r.doubleValue(1.5);
        r.setHeader(1);
        r.pushHeader(3);
        assertEquals("$-1\r\n*4\r\n:1\r\n$3\r\n1.5\r\n_\r\n%2\r\n#t\r\n,1.5\r\n~1\r\n>3\r\n",
                new String(buf.toByteArray(), StandardCharsets.US_ASCII));
    }

    @Test
    void doublesReadAsRedisWritesThem() {
        assertEquals("3.5", Numbers.formatDouble(3.5));
        assertEquals("10", Numbers.formatDouble(10.0));
        assertEquals("0.001", Numbers.formatDouble(0.001));
        assertEquals("-2.25", Numbers.formatDouble(-2.25));
        assertEquals("1e+21", Numbers.formatDouble(1e21));
        assertEquals("1.5e-07", Numbers.formatDouble(1.5e-7));
        assertEquals("inf", Numbers.formatDouble(Double.POSITIVE_INFINITY));
        assertEquals("-inf", Numbers.formatDouble(Double.NEGATIVE_INFINITY));
    }

    @Test
    void everyCommandHasAnIdOfItsOwn() {
        java.util.Map<Integer, String> seen = new java.util.HashMap<>();
        for (CommandTable.Spec s : CommandTable.ALL) {
            String other = seen.put(s.id(), s.name());
            assertTrue(other == null, s.name() + " and " + other + " share the id " + s.id());
        }
    }
}
