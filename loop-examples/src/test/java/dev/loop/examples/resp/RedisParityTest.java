package dev.loop.examples.resp;

import static dev.loop.examples.ExternalTools.assumeInstalled;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.OutputBuffer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The data commands against a real {@code redis-server}: each script runs on a fresh keyspace of
 * both, command by command, and every reply must be the same bytes, in RESP2 over the wire (our
 * server on one loop and on two) and in RESP3 (ours in process, Redis after {@code HELLO 3}). A
 * line starting with {@code ~} compares its reply without order (where Redis' own order is its
 * hash table's, seeded at random); random replies (SPOP, SRANDMEMBER of a part) are not here.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RedisParityTest {
    private static RealRedis redis;

    @BeforeAll
    static void startRedis() throws Exception {
        assumeInstalled("redis-server", "redis-server");
        redis = RealRedis.start();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        if (redis != null) {
            redis.close();
        }
    }

    static final String STRINGS = """
            SET s hello
            TYPE s
            TYPE nokey
            APPEND s " world"
            APPEND new abc
            STRLEN s
            STRLEN nokey
            GETRANGE s 0 4
            GETRANGE s -5 -1
            GETRANGE s 5 2
            GETRANGE s -1 -5
            GETRANGE s 0 100
            GETRANGE nokey 0 1
            GETRANGE s a 1
            SETRANGE s 6 WORLD
            GET s
            SETRANGE pad 5 x
            GET pad
            SETRANGE pad 0 ""
            SETRANGE nopad 3 ""
            EXISTS nopad
            SETRANGE s -1 x
            SETRANGE s 536870911 xx
            SETRANGE s 9223372036854775807 x
            GETSET s new
            GETSET nokey2 v
            GETDEL s
            GETDEL s
            SETNX s a
            SETNX s b
            GET s
            SETEX e 100 v
            TTL e
            SETEX e 0 v
            SETEX e -1 v
            SETEX e x v
            PSETEX e 100000 v
            TTL e
            GETEX e PERSIST
            TTL e
            GETEX e EX 50
            TTL e
            GETEX e PX 20000
            TTL e
            GETEX e EXAT 99999999999
            EXPIRETIME e
            GETEX e PXAT 99999999999000
            PEXPIRETIME e
            GETEX e EX 10 PX 10
            GETEX e EX 10 EX 20
            TTL e
            GETEX e PERSIST EX 10
            GETEX e EX 0
            GETEX e EX
            GETEX e FOO
            GETEX nokey EX 10
            GETEX e EXAT 1
            EXISTS e
            INCRBYFLOAT f 10.5
            INCRBYFLOAT f 0.1
            INCRBYFLOAT f -5
            INCRBYFLOAT f 3.0e3
            INCRBYFLOAT f abc
            INCRBYFLOAT f inf
            INCRBYFLOAT f ""
            INCRBYFLOAT f " 1"
            INCRBYFLOAT g 0.1
            INCRBYFLOAT g 0.2
            INCRBYFLOAT g -0.3
            INCRBYFLOAT g 1.1
            INCRBYFLOAT g 1e-3
            SET h 5.0e3
            INCRBYFLOAT h 200
            SET i 1
            INCRBYFLOAT i 1.5
            SET j abc
            INCRBYFLOAT j 1
            SET j inf
            INCRBYFLOAT j 1
            INCRBYFLOAT k 1e20
            INCRBYFLOAT k 1.0e-5
            INCRBYFLOAT k2 123456789.123456789
            INCRBYFLOAT k3 -7
            INCRBYFLOAT k3 +2.5
            INCRBYFLOAT k4 1e400
            MSETNX m1 a m2 b
            MSETNX m2 x m3 y
            MGET m1 m2 m3
            MSETNX m1
            MSETNX m1 a m2
            SET x v EXAT 99999999999
            EXPIRETIME x
            SET x v PXAT 99999999999123
            PEXPIRETIME x
            SET x v EX 10 PX 10
            SET x v EX 10 EX 100
            TTL x
            SET x v EXAT 0
            SET x v KEEPTTL EX 1
            SET x v EXAT 9223372036854775807
            SET x v PXAT 1
            EXISTS x
            LPUSH l a
            GET l
            GETSET l x
            GETDEL l
            GETEX l
            APPEND l x
            INCRBYFLOAT l 1
            INCR l
            SET l v GET
            STRLEN l
            GETRANGE l 0 1
            SETRANGE l 0 x
            MGET l s
            SETNX l v
            TYPE l
            """;

    static final String KEYS = """
            MSET a1 1 a2 2 b1 3 ab 4 a* 5 a? 6 a[ 7 "a\\\\" 8
            ~KEYS a?
            ~KEYS *
            ~KEYS a[12]
            ~KEYS a[^1]
            ~KEYS a[1-2]
            ~KEYS a[2-1]
            ~KEYS a\\*
            ~KEYS a\\?
            ~KEYS a[
            ~KEYS a[\\[]
            ~KEYS a[]
            ~KEYS a[^]
            ~KEYS a\\
            ~KEYS "a\\\\\\\\"
            ~KEYS [
            ~KEYS *1
            ~KEYS **1
            ~KEYS ""
            ~KEYS ?
            ~KEYS ??
            ~SCAN 0 COUNT 1000
            ~SCAN 0 MATCH a* COUNT 1000
            ~SCAN 0 TYPE string COUNT 1000
            ~SCAN 0 TYPE list COUNT 1000
            ~SCAN 0 TYPE nosuch COUNT 1000
            SCAN x
            SCAN -1 MATCH nomatch
            SCAN +0 MATCH nomatch COUNT 1000
            SCAN 18446744073709551616
            SCAN 0 COUNT 0
            SCAN 0 COUNT x
            SCAN 0 FOO
            SCAN 0 MATCH
            RENAME a1 c1
            GET c1
            EXISTS a1
            RENAME nokey z
            RENAMENX nokey z
            RENAME c1 c1
            RENAMENX c1 c1
            RENAMENX a2 b1
            RENAMENX a2 z1
            EXPIRE z1 100
            RENAME z1 z2
            TTL z2
            UNLINK z2 nokey b1
            TOUCH a? nokey ab
            EXPIREAT ab 99999999999
            EXPIRETIME ab
            PEXPIRETIME ab
            PEXPIREAT ab 99999999999999
            PEXPIRETIME ab
            EXPIRETIME ab
            EXPIRETIME nokey
            PEXPIRETIME nokey
            EXPIRETIME a2
            EXPIREAT ab 1
            EXISTS ab
            EXPIREAT a2 99999999999 NX
            EXPIREAT a2 99999999990 GT
            EXPIREAT a2 99999999990 LT
            EXPIRETIME a2
            EXPIREAT a2 99999999999 XX GT
            EXPIREAT a2 x
            EXPIREAT a2 100 FOO
            EXPIREAT a2 9223372036854775807
            EXPIREAT a2 9223372036854775
            PEXPIREAT a2 9223372036854775807
            EXPIRETIME a2
            EXPIREAT nokey 99999999999
            RENAME a2 a3
            EXPIRETIME a3
            RPUSH list x
            TYPE list
            RENAME list a3
            TYPE a3
            LRANGE a3 0 -1
            EXPIRETIME a3
            DBSIZE
            FLUSHDB
            RANDOMKEY
            SET only v
            RANDOMKEY
            """;

    static final String HASHES = """
            HSET h f1 v1 f2 v2
            HSET h f1 x f3 v3
            HSET h f1
            HMSET h f4 v4
            HMSET h f4
            HGET h f1
            HGET h nof
            HGET noh f
            HMGET h f1 nof f2
            HMGET noh a
            HGETALL h
            HGETALL noh
            HKEYS h
            HKEYS noh
            HVALS h
            HLEN h
            HLEN noh
            HEXISTS h f1
            HEXISTS h nof
            HSTRLEN h f1
            HSTRLEN h nof
            HSETNX h f1 y
            HSETNX h f5 y
            HSETNX newh f y
            HINCRBY h n 5
            HINCRBY h n -10
            HINCRBY h f1 1
            HINCRBY h n x
            HINCRBY h n 9223372036854775807
            HINCRBY h n -9223372036854775807
            HINCRBY h n -9223372036854775807
            HINCRBYFLOAT h fl 1.5
            HINCRBYFLOAT h fl 0.1
            HINCRBYFLOAT h f1 1
            HINCRBYFLOAT h fl x
            HINCRBYFLOAT h fl inf
            HINCRBYFLOAT h n 1.5
            HINCRBYFLOAT noh2 f x
            EXISTS noh2
            HGETALL h
            HDEL h f1 f2 nof
            HDEL h f3 f4 f5 n fl
            EXISTS h
            HDEL h x
            HSCAN h 0
            HSET h a 1 b 2 ab 3
            HSCAN h 0
            HSCAN h 0 MATCH a*
            HSCAN h 0 COUNT 1
            HSCAN h x
            HSCAN noh 0
            HSCAN h 0 FOO
            HSCAN h 0 COUNT 0
            SET s v
            HSET s a b
            HGET s a
            HMGET s a
            HGETALL s
            HDEL s a
            HLEN s
            HEXISTS s a
            HINCRBY s a 1
            HINCRBYFLOAT s a 1
            HSCAN s 0
            HKEYS s
            HSETNX s a b
            TYPE h
            """;

    static final String LISTS = """
            RPUSH l a b c d e
            LPUSH l z y
            LRANGE l 0 -1
            LRANGE l 1 2
            LRANGE l -2 -1
            LRANGE l 5 1
            LRANGE l 100 200
            LRANGE l -100 100
            LRANGE nol 0 -1
            LRANGE l x 1
            LLEN l
            LLEN nol
            LINDEX l 0
            LINDEX l -1
            LINDEX l 100
            LINDEX l x
            LINDEX nol x
            LSET l 0 Z
            LSET l -1 E
            LSET l 100 x
            LSET l x y
            LSET nol 0 x
            LSET nol x x
            LINSERT l BEFORE c C
            LINSERT l AFTER c D
            LINSERT l AFTER nopivot x
            LINSERT l MIDDLE c x
            LINSERT nol BEFORE a b
            LRANGE l 0 -1
            RPUSH r a b a c a
            LREM r 2 a
            LRANGE r 0 -1
            RPUSH r a a
            LREM r -1 a
            LRANGE r 0 -1
            LREM r 0 a
            LRANGE r 0 -1
            LREM r x a
            LREM nol 0 a
            LTRIM r 1 -1
            LRANGE r 0 -1
            LTRIM r 5 10
            EXISTS r
            LTRIM nol 0 1
            LTRIM l x 1
            RPUSH p a b c a b c
            LPOS p a
            LPOS p a RANK 2
            LPOS p a RANK -1
            LPOS p a COUNT 0
            LPOS p a COUNT 1
            LPOS p b RANK -1 COUNT 0
            LPOS p a RANK 2 COUNT 5
            LPOS p c MAXLEN 2
            LPOS p c MAXLEN 3
            LPOS p c COUNT 0 MAXLEN 6
            LPOS p a RANK 0
            LPOS p a COUNT -1
            LPOS p a MAXLEN -1
            LPOS p a FOO
            LPOS p a RANK
            LPOS p nope
            LPOS p nope COUNT 0
            LPOS nol a
            LPOS nol a COUNT 0
            LPOS p a RANK x
            LPOS p a RANK -9223372036854775808
            LPOP p
            RPOP p
            LPOP p 2
            RPOP p 0
            LRANGE p 0 -1
            LPOP p 10
            EXISTS p
            LPOP nol
            LPOP nol 2
            RPOP nol 0
            LPOP l -1
            LPOP l x
            LPOP l 1 2
            LPUSHX nol a
            RPUSHX nol a
            EXISTS nol
            RPUSH q 1
            LPUSHX q 0
            RPUSHX q 2 3
            LRANGE q 0 -1
            LMOVE q dst LEFT RIGHT
            LMOVE q dst RIGHT LEFT
            LMOVE q q LEFT RIGHT
            LRANGE q 0 -1
            LRANGE dst 0 -1
            LMOVE q dst UP DOWN
            LMOVE nol dst LEFT LEFT
            RPOPLPUSH q dst
            RPOPLPUSH nol dst
            RPOPLPUSH q dst
            EXISTS q
            SET str v
            LPUSH str a
            LMOVE dst str LEFT LEFT
            LRANGE dst 0 -1
            LLEN str
            LPOP str
            LINDEX str 0
            LSET str 0 x
            LREM str 0 x
            LTRIM str 0 1
            LINSERT str BEFORE a b
            LPOS str a
            RPUSHX str a
            BLPOP dst 0
            BRPOP nol dst 1
            BLPOP str 1
            BLPOP nol str 0
            BLPOP x -1
            BLPOP x abc
            BLMOVE dst nol2 LEFT RIGHT 0
            LRANGE nol2 0 -1
            BLMOVE dst nol2 LEFT MIDDLE 0
            BLMOVE nol nol2 LEFT RIGHT -1
            BLMOVE nol2 str LEFT RIGHT 0
            BLMOVE str nol2 LEFT RIGHT 0
            RPUSH big 1 2 3
            BLPOP big big 0
            BRPOP big 0
            """;

    static final String SETS = """
            SADD s 3 1 2
            SADD s 2 4
            SMEMBERS s
            SCARD s
            SISMEMBER s 1
            SISMEMBER s 9
            SMISMEMBER s 1 9 2
            SMISMEMBER nos 1
            SMEMBERS nos
            SCARD nos
            SISMEMBER nos 1
            SREM s 1 9
            SREM nos 1
            SMEMBERS s
            SADD t 4 5 6 -1 10
            SMEMBERS t
            SINTER s t
            SUNION s t
            SDIFF s t
            SDIFF t s
            SINTER s nos
            SUNION s nos
            SDIFF nos s
            SDIFF s nos
            SINTERSTORE d s t
            SMEMBERS d
            SUNIONSTORE d s t
            SMEMBERS d
            SDIFFSTORE d s t
            SMEMBERS d
            SINTERSTORE d s nos
            EXISTS d
            SUNIONSTORE d s t
            EXPIRE d 100
            SDIFFSTORE d t s
            TTL d
            SDIFFSTORE d nos s
            EXISTS d
            SMOVE s t 2
            SMOVE s t 99
            SMOVE nos t 1
            SMOVE s s 3
            SMOVE s s 99
            SMEMBERS s
            SMEMBERS t
            SMOVE s newset 3
            SMEMBERS newset
            SMEMBERS s
            SSCAN t 0
            SSCAN t 0 MATCH 5*
            SSCAN t 0 COUNT 1
            SSCAN t x
            SSCAN nos 0
            SSCAN t 0 FOO
            SPOP nos
            SPOP nos 2
            SPOP t 0
            SPOP t -1
            SPOP t x
            SPOP t 1 2
            SRANDMEMBER nos
            SRANDMEMBER nos 5
            SRANDMEMBER nos -5
            SRANDMEMBER t 0
            SRANDMEMBER t 100
            SRANDMEMBER t x
            SRANDMEMBER t -9223372036854775808
            SRANDMEMBER t 1 2
            SADD one 7
            SRANDMEMBER one -3
            SRANDMEMBER one
            SPOP one
            EXISTS one
            SPOP t 100
            EXISTS t
            SET str v
            SADD str a
            SREM str a
            SMEMBERS str
            SCARD str
            SISMEMBER str a
            SMISMEMBER str a
            SINTER s str
            SINTER nos str
            SUNION str nos
            SDIFF nos str
            SUNIONSTORE d str
            SMOVE str newset a
            SMOVE newset str 3
            SPOP str
            SRANDMEMBER str
            SSCAN str 0
            ~SADD w a b c
            ~SMEMBERS w
            SADD w 1
            ~SMEMBERS w
            ~SUNION w newset
            ~SINTER w w
            SDIFF w w
            SISMEMBER w b
            TYPE w
            """;

    static Stream<Object[]> scripts() {
        return Stream.of(new Object[] {"strings", STRINGS}, new Object[] {"keys", KEYS},
                new Object[] {"hashes", HASHES}, new Object[] {"lists", LISTS}, new Object[] {"sets", SETS});
    }

    static Stream<Object[]> scriptsOnLoops() {
        return scripts().flatMap(s -> Stream.of(new Object[] {s[0], s[1], 1}, new Object[] {s[0], s[1], 2}));
    }

    @ParameterizedTest(name = "{0}, RESP2, {2} loops")
    @MethodSource("scriptsOnLoops")
    void repliesAreRedisBytesInResp2(String name, String script, int loops) throws Exception {
        try (RespServer ours = RespServer.start(RespServer.Config.defaults()
                .withAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0)).withLoops(loops));
             RealRedis.Client us = new RealRedis.Client(ours.address());
             RealRedis.Client them = new RealRedis.Client(redis.address)) {
            them.callString("FLUSHALL");
            for (Line l : parse(script)) {
                us.send(l.args());
                them.send(l.args());
                compare(l, them.read(), us.read());
            }
        }
    }

    @ParameterizedTest(name = "{0}, RESP3")
    @MethodSource("scripts")
    void repliesAreRedisBytesInResp3(String name, String script) throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"));
             RealRedis.Client them = new RealRedis.Client(redis.address)) {
            them.callString("HELLO", "3");
            them.callString("FLUSHALL");
            Keyspace[] dbs = new Keyspace[16];
            Commands commands = onLoop(loop, () -> {
                for (int i = 0; i < dbs.length; i++) {
                    dbs[i] = new Keyspace(loop);
                }
                return new Commands(dbs, Map.of());
            });
            Session session = new Session(1);
            session.reply.protocol(3);
            OutputBuffer out = new OutputBuffer(1024);
            for (Line l : parse(script)) {
                them.send(l.args());
                String ours = onLoop(loop, () -> {
                    out.reset();
                    commands.execute(l.args().toArray(byte[][]::new), session, out);
                    return new String(out.toByteArray(), StandardCharsets.ISO_8859_1);
                });
                compare(l, them.read(), ours);
            }
        }
    }

    @org.junit.jupiter.api.Test
    void commandInfoDescribesEveryDataCommandAsRedisDoes() throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend("select"));
             RealRedis.Client them = new RealRedis.Client(redis.address)) {
            Commands commands = onLoop(loop, () -> new Commands(new Keyspace[] {new Keyspace(loop)}, Map.of()));
            OutputBuffer out = new OutputBuffer(1024);
            for (CommandTable.Spec spec : DataCommandTable.ALL) {
                String theirs = them.callString("COMMAND", "INFO", spec.name());
                String ours = onLoop(loop, () -> {
                    out.reset();
                    commands.execute(new byte[][] {"COMMAND".getBytes(StandardCharsets.US_ASCII),
                        "INFO".getBytes(StandardCharsets.US_ASCII), spec.name().getBytes(StandardCharsets.US_ASCII)},
                            new Session(1), out);
                    return new String(out.toByteArray(), StandardCharsets.ISO_8859_1);
                });
                // name, arity, flags, first key, last key, step: the fields before ACL categories,
                // tips, key specifications and subcommands, which this server leaves empty
                assertEquals(firstFields(theirs, 6), firstFields(ours, 6), spec.name());
            }
        }
    }

    /** The first {@code n} fields of the one command description in a COMMAND INFO reply. */
    private static List<String> firstFields(String reply, int n) throws java.io.IOException {
        java.io.InputStream in = new java.io.ByteArrayInputStream(reply.getBytes(StandardCharsets.ISO_8859_1));
        skipLine(in); // *1
        skipLine(in); // *10 (or more)
        List<String> fields = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            fields.add(RealRedis.Resp.read(in));
        }
        return fields;
    }

    private static void skipLine(java.io.InputStream in) throws java.io.IOException {
        for (int c = in.read(); c != '\n' && c >= 0; c = in.read()) {
            // the header of an aggregate whose elements are read one by one
        }
    }

    private static void compare(Line l, String theirs, String ours) {
        if (l.unordered()) {
            assertEquals(RealRedis.Resp.canonical(theirs), RealRedis.Resp.canonical(ours), l.text() + " (any order)");
        } else {
            assertEquals(theirs, ours, l.text());
        }
    }

    private static <T> T onLoop(Loop loop, java.util.function.Supplier<T> s) {
        List<T> box = new ArrayList<>(1);
        loop.callSoon(() -> box.add(s.get()));
        loop.stop();
        loop.runForever();
        return box.get(0);
    }

    /** One command of a script: its arguments, whether its reply is compared without order, its text. */
    record Line(List<byte[]> args, boolean unordered, String text) {
    }

    /** Lines of space-separated words; {@code "..."} quotes one (with {@code \\} and {@code \"} escapes). */
    static List<Line> parse(String script) {
        List<Line> lines = new ArrayList<>();
        for (String raw : script.strip().split("\n")) {
            String text = raw.strip();
            boolean unordered = text.startsWith("~");
            String s = unordered ? text.substring(1) : text;
            List<byte[]> args = new ArrayList<>();
            int i = 0;
            while (i < s.length()) {
                if (s.charAt(i) == ' ') {
                    i++;
                    continue;
                }
                StringBuilder w = new StringBuilder();
                if (s.charAt(i) == '"') {
                    for (i++; s.charAt(i) != '"'; i++) {
                        if (s.charAt(i) == '\\') {
                            i++;
                        }
                        w.append(s.charAt(i));
                    }
                    i++;
                } else {
                    for (; i < s.length() && s.charAt(i) != ' '; i++) {
                        w.append(s.charAt(i));
                    }
                }
                args.add(w.toString().getBytes(StandardCharsets.UTF_8));
            }
            lines.add(new Line(args, unordered, text));
        }
        return lines;
    }
}
