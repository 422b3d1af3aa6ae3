package dev.loop.examples.http;

import static dev.loop.examples.http.RawHttp.ascii;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The grammars the server checks without a socket: RFC 3986 authorities and RFC 9110 dates. */
class HttpGrammarTest {
    private static boolean hostAndPort(String s) {
        byte[] b = ascii("<" + s + ">"); // not at the array's edges: bounds are what is checked
        return Authority.isHostAndPort(b, 1, b.length - 1);
    }

    @Test
    void hostsAndPortsAsRfc3986Has() {
        for (String ok : new String[] {"", "a", "example.com", "example.com:80", "example.com:", "127.0.0.1:8080",
                                       "999.1.1.1", "ex%41mple", "[::]", "[::1]", "[1::]", "[1:2:3:4:5:6:7:8]:443",
                                       "[1:2:3:4:5:6:7::]", "[::ffff:192.0.2.1]", "[fe80::1:2]", "[v1.a:b]",
                                       "[V7.x]", "a~b_c-d.e!$&'()*+,;="}) {
            assertTrue(hostAndPort(ok), ok);
        }
        for (String bad : new String[] {"a b", "127.0.0.1:abc", "user@host", "h:1:2", "[::1", "::1", "[::1]x",
                                        "[::1]:a", "[1:2:3:4:5:6:7:8:9]", "[1:2:3:4:5:6:7]", "[1::2::3]",
                                        "[:1:2:3:4:5:6:7]", "[1:2:3:4:5:6:7:]", "[12345::]", "[::256.0.0.1]",
                                        "[::1.2.3]", "[::01.2.3.4]", "[v.x]", "[v1.]", "[vg.x]", "a%4", "a%zz",
                                        "a/b", "a\"b", "[]"}) {
            assertFalse(hostAndPort(bad), bad);
        }
    }

    @Test
    void theThreeDateFormsARecipientMustAccept() {
        long now = Instant.parse("2026-01-01T00:00:00Z").getEpochSecond();
        long expected = Instant.parse("1994-11-06T08:49:37Z").getEpochSecond();
        assertEquals(expected, HttpDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now));
        assertEquals(expected, HttpDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now), "94 is 50+ years ahead: 1994");
        assertEquals(expected, HttpDate.parse("Sun Nov  6 08:49:37 1994", now));
        assertEquals(Instant.parse("2070-01-01T00:00:00Z").getEpochSecond(),
                HttpDate.parse("Wednesday, 01-Jan-70 00:00:00 GMT", now), "70 is under 50 years ahead: 2070");
        assertEquals("Sun, 06 Nov 1994 08:49:37 GMT", HttpDate.format(expected));
        for (String bad : new String[] {"Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 6 Nov 1994 08:49:37 GMT",
                                        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 30 Feb 1994 08:49:37 GMT",
                                        "Sun, 06 Nov 1994 08:49:60 GMT", "sun, 06 nov 1994 08:49:37 GMT", "",
                                        "Sun, 06 Nov 1994 08:49:37 GMT" + " ".repeat(100), "1994-11-06T08:49:37Z"}) {
            assertEquals(HttpDate.INVALID, HttpDate.parse(bad, now), bad);
        }
    }
}
