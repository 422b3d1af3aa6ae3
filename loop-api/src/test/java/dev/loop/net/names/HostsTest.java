package dev.loop.net.names;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import org.junit.jupiter.api.Test;

class HostsTest {

    private static InetAddress ip(String literal) throws UnknownHostException {
        return InetAddress.getByName(literal);
    }

    @Test
    void literalsAreAddressesAndNamesAreNot() throws Exception {
        assertEquals(ip("127.0.0.1"), Hosts.literal("127.0.0.1"));
        assertEquals(ip("::1"), Hosts.literal("::1"));
        assertEquals(ip("::1"), Hosts.literal("[::1]"));
        assertEquals(ip("2001:db8::5"), Hosts.literal("2001:DB8::5"));
        for (String name : List.of("localhost", "example.org", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1..2.3",
                "1.2.3.", "10.0.0.1a", "")) {
            assertNull(Hosts.literal(name), name + " is not a dotted quad: a name for the resolver");
        }
    }

    @Test
    void aMalformedIpv6LiteralIsAnErrorNotAName() {
        UnknownHostException e = assertThrows(UnknownHostException.class, () -> Hosts.literal("dead:beef:zz"));
        assertTrue(e.getMessage().contains("dead:beef:zz"), e.getMessage());
    }

    @Test
    void familiesAlternateIpv6FirstEachInTheResolversOrder() throws Exception {
        InetAddress a4 = ip("10.0.0.1");
        InetAddress b4 = ip("10.0.0.2");
        InetAddress c4 = ip("10.0.0.3");
        InetAddress a6 = ip("2001:db8::1");
        InetAddress b6 = ip("2001:db8::2");
        assertEquals(List.of(a6, a4, b6, b4, c4), Hosts.interleave(List.of(a4, b4, a6, c4, b6)));
        assertEquals(List.of(a4, b4), Hosts.interleave(List.of(a4, b4, a4)), "duplicates once");
        assertEquals(List.of(a6, b6), Hosts.interleave(List.of(a6, b6)));
    }

    @Test
    void aNamedAddressKeepsItsBytesAndCarriesTheHost() throws Exception {
        InetAddress named = Hosts.named("dual.test", ip("::1"));
        assertEquals(ip("::1"), named);
        assertTrue(named.toString().startsWith("dual.test/"), named.toString());
        assertEquals("dual.test/127.0.0.1", Hosts.named("dual.test", ip("127.0.0.1")).toString());
    }
}
