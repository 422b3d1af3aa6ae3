package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.examples.ExternalTools;
import dev.loop.testkit.Cell;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The connection commands, transactions and pub/sub byte for byte: each request sent raw, and the
 * bytes that come back compared with what redis-server 7 sends, against this server on every
 * backend and against redis-server itself (so an expectation that is not redis-server's fails
 * there). HELLO's version and client id, which differ by nature, are masked.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RespPairsTest {
    /**
     * How long a connection is read after the expected bytes came, for any extra ones (they would
     * come in the same write), and how long to listen when nothing is expected.
     */
    private static final Duration QUIET = Duration.ofMillis(50);
    private static final Duration SILENCE = Duration.ofMillis(300);

    static Stream<Arguments> targets() {
        return RedisTarget.targets();
    }

    /**
     * Sends {@code request} and reads until the server closes, or until {@code expected}'s length
     * has come (as masked) and then nothing more for a moment; masks what differs by nature.
     * Waiting for the expected length first keeps a busy machine's slow replies from reading as
     * missing ones.
     */
    private static String exchange(RedisTarget t, String request, String expected) throws IOException {
        try (Socket s = ExternalTools.connect(t.address(), Duration.ofSeconds(10))) {
            s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] b = new byte[8192];
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            try {
                while (true) {
                    boolean enough = mask(got).length() >= expected.length();
                    if (!enough && System.nanoTime() > deadline) {
                        break;
                    }
                    s.setSoTimeout(enough ? (int) (expected.isEmpty() ? SILENCE : QUIET).toMillis() : 10_000);
                    int n = in.read(b);
                    if (n < 0) {
                        got.writeBytes("<closed>".getBytes(StandardCharsets.US_ASCII));
                        break;
                    }
                    got.write(b, 0, n);
                }
            } catch (SocketTimeoutException quiet) {
                // the server waits for more: what it sent so far is the answer
            }
            return mask(got);
        }
    }

    private static String mask(ByteArrayOutputStream got) {
        return got.toString(StandardCharsets.ISO_8859_1)
                .replaceAll("\\$7\r\nversion\r\n\\$\\d+\r\n[0-9.]+\r\n", "\\$7\r\nversion\r\n<version>\r\n")
                .replaceAll("\\$2\r\nid\r\n:\\d+\r\n", "\\$2\r\nid\r\n<id>\r\n");
    }

    private static void check(String expected, RedisTarget t, String request) throws IOException {
        assertEquals(expected, exchange(t, request, expected));
    }

    private static void check(String expected, RedisTarget t, String request, String why) throws IOException {
        assertEquals(expected, exchange(t, request, expected), why);
    }

    private static final String HELLO3 = "%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n<version>\r\n$5\r\nproto\r\n:3"
            + "\r\n$2\r\nid\r\n<id>\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n";
    private static final String HELLO2 = "*14\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n<version>\r\n$5\r\nproto\r\n:2"
            + "\r\n$2\r\nid\r\n<id>\r\n$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$7\r\nmodules\r\n*0\r\n";

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void helloSwitchesProtocolAndRefusesOthers(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            check(HELLO3 + "_\r\n>3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n+PONG\r\n",
                    t, "HELLO 3\r\nGET nope\r\nSUBSCRIBE a\r\nPING\r\n");
            check(HELLO2, t, "HELLO 2\r\n");
            check("-NOPROTO unsupported protocol version\r\n+PONG\r\n"
                    + "-ERR Protocol version is not an integer or out of range\r\n"
                    + "-ERR Syntax error in HELLO option 'SETNAME'\r\n-ERR Syntax error in HELLO option 'FOO'\r\n"
                    + "-ERR Syntax error in HELLO option 'AUTH'\r\n",
                    t, "HELLO 4\r\nPING\r\nHELLO abc\r\nHELLO 3 SETNAME\r\nHELLO 3 FOO\r\nHELLO 2 AUTH a\r\n");
            check("-ERR AUTH <password> called without any password configured for the default user. Are you "
                    + "sure your configuration is correct?\r\n-WRONGPASS invalid username-password pair or user is "
                    + "disabled.\r\n+OK\r\n", t, "AUTH x\r\nAUTH a b\r\nAUTH default anything\r\n");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void requirepassGatesEveryCommandButAuthHelloQuitReset(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell, "secret")) {
            String noauthHello = "-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                    + "HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP "
                    + "protocol version at the same time\r\n";
            check("-NOAUTH Authentication required.\r\n" + noauthHello
                    + "-WRONGPASS invalid username-password pair or user is disabled.\r\n".repeat(2)
                    + "+OK\r\n+PONG\r\n+RESET\r\n-NOAUTH Authentication required.\r\n",
                    t, "PING\r\nHELLO 3\r\nAUTH x\r\nAUTH default x\r\nAUTH secret\r\nPING\r\nRESET\r\nPING\r\n");
            check(HELLO3 + "$2\r\nme\r\n", t, "HELLO 3 AUTH default secret SETNAME me\r\nCLIENT GETNAME\r\n");
            check("-NOAUTH Authentication required.\r\n-NOAUTH Authentication required.\r\n+OK\r\n<closed>",
                    t, "MULTI\r\nECHO x\r\nQUIT\r\n");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void clientSubcommands(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            check("-ERR syntax error\r\n-ERR wrong number of arguments for 'client|setname' command\r\n"
                    + "-ERR wrong number of arguments for 'client|getname' command\r\n"
                    + "-ERR wrong number of arguments for 'client|id' command\r\n+OK\r\n$-1\r\n"
                    + "-ERR Client names cannot contain spaces, newlines or special characters.\r\n+OK\r\n$3\r\nfoo\r\n"
                    + "+OK\r\n-ERR unknown subcommand 'FOO'. Try CLIENT HELP.\r\n"
                    + "-ERR wrong number of arguments for 'client' command\r\n",
                    t, "CLIENT NO-EVICT maybe\r\nCLIENT SETNAME\r\nCLIENT GETNAME x\r\nCLIENT ID x\r\n"
                            + "CLIENT SETNAME \"\"\r\nCLIENT GETNAME\r\nCLIENT SETNAME \"a b\"\r\nCLIENT SETNAME foo\r\n"
                            + "CLIENT GETNAME\r\nCLIENT NO-EVICT on\r\nCLIENT FOO\r\nCLIENT\r\n");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void multiExecDiscardWatch(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            check("+OK\r\n+QUEUED\r\n+QUEUED\r\n+QUEUED\r\n*3\r\n+OK\r\n:2\r\n$1\r\n2\r\n",
                    t, "MULTI\r\nSET a 1\r\nINCR a\r\nGET a\r\nEXEC\r\n");
            check("+OK\r\n+QUEUED\r\n-ERR unknown command 'NOSUCH', with args beginning with: \r\n"
                    + "-ERR wrong number of arguments for 'get' command\r\n"
                    + "-EXECABORT Transaction discarded because of previous errors.\r\n-ERR EXEC without MULTI\r\n"
                    + "-ERR DISCARD without MULTI\r\n",
                    t, "MULTI\r\nSET a 1\r\nNOSUCH\r\nGET\r\nEXEC\r\nEXEC\r\nDISCARD\r\n");
            check("+OK\r\n-ERR MULTI calls can not be nested\r\n-ERR WATCH inside MULTI is not allowed\r\n"
                    + "+OK\r\n+OK\r\n+OK\r\n", t, "MULTI\r\nMULTI\r\nWATCH x\r\nDISCARD\r\nWATCH x\r\nUNWATCH\r\n");
            check("+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n-ERR value is not an integer or out of range\r\n",
                    t, "MULTI\r\nSET a x\r\nINCR a\r\nEXEC\r\n");
            check("+OK\r\n+OK\r\n+OK\r\n+QUEUED\r\n*-1\r\n", t, "WATCH k\r\nSET k 1\r\nMULTI\r\nPING\r\nEXEC\r\n");
            check("+OK\r\n+OK\r\n+QUEUED\r\n*1\r\n+PONG\r\n", t, "WATCH k\r\nMULTI\r\nPING\r\nEXEC\r\n");
            check("+OK\r\n+QUEUED\r\n+QUEUED\r\n*2\r\n+OK\r\n+OK\r\n$1\r\n1\r\n",
                    t, "MULTI\r\nSELECT 1\r\nSET a 1\r\nEXEC\r\nGET a\r\n");
            check("+OK\r\n+QUEUED\r\n+RESET\r\n-ERR EXEC without MULTI\r\n", t, "MULTI\r\nPING\r\nRESET\r\nEXEC\r\n");
            check(HELLO3 + "+OK\r\n+QUEUED\r\n*1\r\n_\r\n+OK\r\n+OK\r\n+OK\r\n_\r\n",
                    t, "HELLO 3\r\nMULTI\r\nGET nope\r\nEXEC\r\nWATCH k\r\nSET k 1\r\nMULTI\r\nEXEC\r\n");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void pubSubInBothProtocols(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            check("*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\nb\r\n:2\r\n"
                    + "*2\r\n$4\r\npong\r\n$0\r\n\r\n*2\r\n$4\r\npong\r\n$1\r\nx\r\n"
                    + "-ERR Can't execute 'get': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are "
                    + "allowed in this context\r\n*3\r\n$10\r\npsubscribe\r\n$2\r\nh*\r\n:3\r\n"
                    + "*3\r\n$11\r\nunsubscribe\r\n$1\r\nb\r\n:2\r\n*3\r\n$11\r\nunsubscribe\r\n$1\r\na\r\n:1\r\n"
                    + "*3\r\n$12\r\npunsubscribe\r\n$2\r\nh*\r\n:0\r\n*3\r\n$11\r\nunsubscribe\r\n$-1\r\n:0\r\n+PONG\r\n",
                    t, "SUBSCRIBE a b\r\nPING\r\nPING x\r\nGET a\r\nPSUBSCRIBE h*\r\nUNSUBSCRIBE b a\r\n"
                            + "PUNSUBSCRIBE\r\nUNSUBSCRIBE\r\nPING\r\n");
            check(":0\r\n*0\r\n*4\r\n$1\r\na\r\n:0\r\n$1\r\nb\r\n:0\r\n:0\r\n"
                    + "-ERR wrong number of arguments for 'subscribe' command\r\n*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n"
                    + "+RESET\r\n+PONG\r\n-ERR unknown subcommand 'FOO'. Try PUBSUB HELP.\r\n",
                    t, "PUBLISH a hi\r\nPUBSUB CHANNELS\r\nPUBSUB NUMSUB a b\r\nPUBSUB NUMPAT\r\nSUBSCRIBE\r\n"
                            + "SUBSCRIBE a\r\nRESET\r\nPING\r\nPUBSUB FOO\r\n");
            // a RESP3 subscriber that publishes to itself reads the message before PUBLISH's reply
            check(HELLO3 + ">3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n>3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\nx\r\n:1\r\n"
                    + ">3\r\n$10\r\npsubscribe\r\n$1\r\n*\r\n:2\r\n>3\r\n$7\r\nmessage\r\n$1\r\na\r\n$1\r\ny\r\n"
                    + ">4\r\n$8\r\npmessage\r\n$1\r\n*\r\n$1\r\na\r\n$1\r\ny\r\n:2\r\n$1\r\nx\r\n",
                    t, "HELLO 3\r\nSUBSCRIBE a\r\nPUBLISH a x\r\nPSUBSCRIBE *\r\nPUBLISH a y\r\nECHO x\r\n");
            check("*3\r\n$9\r\nsubscribe\r\n$1\r\na\r\n:1\r\n+OK\r\n<closed>", t, "SUBSCRIBE a\r\nQUIT\r\n");
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void multibulkLinesEndAtCrLf(Cell cell) throws Exception {
        try (RedisTarget t = RedisTarget.start(cell)) {
            check("", t, "*1\n$4\nPING\n", "no CR: the count line is not complete yet");
            check("-ERR Protocol error: invalid bulk length\r\n<closed>", t, "*1\r\n$4\nPING\r\n");
            check("", t, "*1\r\n$4\r\nPING\n", "the data's CRLF is two bytes, whatever they are");
            check("+PONG\r\n+PONG\r\n", t, "PING\nPING\r\n", "inline commands may end with LF alone");
        }
    }
}
