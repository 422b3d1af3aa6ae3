package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.examples.io.InputBuffer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The RESP2 request parser, fed whole and a byte at a time. */
class RespParserTest {
    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static List<String> strings(byte[][] argv) {
        return Stream.of(argv).map(a -> new String(a, StandardCharsets.ISO_8859_1)).toList();
    }

    /** Every command in {@code input}, fed {@code step} bytes at a time. */
    private static List<List<String>> parse(String input, int step) throws ProtocolError {
        RespParser p = new RespParser(1024, 1 << 20, 1 << 24);
        InputBuffer in = new InputBuffer();
        List<List<String>> commands = new ArrayList<>();
        byte[] bytes = ascii(input);
        for (int i = 0; i < bytes.length; i += step) {
            in.append(ByteBuffer.wrap(bytes, i, Math.min(step, bytes.length - i)));
            for (byte[][] argv = p.next(in); argv != null; argv = p.next(in)) {
                if (argv.length > 0) {
                    commands.add(strings(argv));
                }
            }
        }
        assertTrue(in.isEmpty(), "everything consumed");
        return commands;
    }

    @Test
    void multibulkAndInlineWholeOrByteByByte() throws ProtocolError {
        String input = "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\na\r\nb\n\r\n" + "*0\r\n" + "PING\r\n" + "\r\n"
                + "  set  \"a b\\x41\\n\" 'it\\'s'  \n" + "*1\r\n$0\r\n\r\n" + "*-1\r\n" + "GET k\n";
        List<List<String>> expected = List.of(List.of("SET", "k", "a\r\nb\n"), List.of("PING"),
                List.of("set", "a bA\n", "it's"), List.of(""), List.of("GET", "k"));
        for (int step : new int[] {input.length(), 1, 2, 7}) {
            assertEquals(expected, parse(input, step), "step " + step);
        }
    }

    @Test
    void protocolErrorsUseRedisWording() {
        String[][] cases = {
            {"*x\r\n", "invalid multibulk length"},
            {"*2000\r\n", "invalid multibulk length"},
            {"*1\r\nGET\r\n", "expected '$', got 'G'"},
            {"*1\r\n$-1\r\n", "invalid bulk length"},
            {"*1\r\n$99999999\r\n", "invalid bulk length"},
            {"*1\r\n$1x\r\n", "invalid bulk length"},
            {"SET \"a b\r\n", "unbalanced quotes in request"},
            {"SET \"a\"b\r\n", "unbalanced quotes in request"},
            {"x".repeat(RespParser.MAX_INLINE + 1), "too big inline request"},
            {"*" + "1".repeat(RespParser.MAX_INLINE + 1), "too big mbulk count string"},
        };
        for (String[] c : cases) {
            ProtocolError e = assertThrows(ProtocolError.class, () -> parse(c[0], c[0].length()), c[0]);
            assertEquals(c[1], e.getMessage());
            assertEquals("ERR Protocol error: " + c[1], e.reply());
        }
    }

    @Test
    void aLargeValueGrowsWithItsBytesNotItsHeaderAndComesOutWhole() throws ProtocolError {
        RespParser p = new RespParser(1024, 1 << 20, 1 << 24);
        InputBuffer in = new InputBuffer();
        String header = "*2\r\n$3\r\nGET\r\n$600000\r\n";
        in.append(ByteBuffer.wrap(ascii(header)));
        assertNull(p.next(in));
        assertTrue(in.array().length <= RespParser.PRESIZE_CAP + header.length(),
                "a header alone buys " + in.array().length + " bytes of room");
        byte[] value = new byte[600_000];
        value[0] = 1;
        value[599_999] = 2;
        int received = header.length();
        for (int at = 0; at < value.length; at += 50_000) {
            in.append(ByteBuffer.wrap(value, at, 50_000));
            received += 50_000;
            assertNull(p.next(in));
            assertTrue(in.array().length <= 2L * (received + RespParser.PRESIZE_CAP), // doubling, at worst
                    in.array().length + " bytes of room after " + received + " received");
        }
        in.append(ByteBuffer.wrap(ascii("\r\n")));
        byte[][] argv = p.next(in);
        assertArrayEquals(value, argv[1]);
    }

    @Test
    void aCommandLargerThanTheLimitIsRefused() {
        RespParser p = new RespParser(1024, 100, 150);
        InputBuffer in = new InputBuffer();
        in.append(ByteBuffer.wrap(ascii("*3\r\n$3\r\nSET\r\n$100\r\n" + "k".repeat(100) + "\r\n$100\r\n")));
        ProtocolError e = assertThrows(ProtocolError.class, () -> {
            while (p.next(in) != null) {
                // keep parsing
            }
        });
        assertEquals("command of more than 150 bytes", e.getMessage());
    }

    @Test
    void integersAreStrictAndCoverTheWholeRange() {
        for (String ok : new String[] {"0", "7", "-7", "9223372036854775807", "-9223372036854775808"}) {
            assertTrue(Numbers.isLong(ascii(ok)), ok);
            assertEquals(Long.parseLong(ok), Numbers.parseLong(ascii(ok)), ok);
        }
        for (String bad : new String[] {"", "-", "+1", "01", "-0", " 1", "1 ", "1.0", "9223372036854775808",
            "-9223372036854775809", "99999999999999999999", "123456789012345678901"}) {
            assertFalse(Numbers.isLong(ascii(bad)), bad);
        }
    }
}
