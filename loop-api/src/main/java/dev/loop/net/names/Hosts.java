package dev.loop.net.names;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/** Host strings and address lists, without a lookup: what is a literal, and the order to try addresses in. */
public final class Hosts {
    private Hosts() {
    }

    /**
     * The address {@code host} spells, or null when it is a name. IPv4 is the dotted quad only
     * ({@code 127.0.0.1}); anything with a colon is IPv6, bracketed or not ({@code ::1},
     * {@code [::1]}, {@code fe80::1%2}), and a malformed one is an error, never a name to look up.
     *
     * @throws UnknownHostException naming {@code host} for a malformed IPv6 literal
     */
    public static InetAddress literal(String host) throws UnknownHostException {
        if (host.indexOf(':') >= 0) {
            String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
            // brackets make the JDK parse it as IPv6 or fail: it never looks a bracketed string up
            return InetAddress.getByName("[" + bare + "]");
        }
        byte[] v4 = dottedQuad(host);
        return v4 == null ? null : InetAddress.getByAddress(v4);
    }

    private static byte[] dottedQuad(String s) {
        byte[] out = new byte[4];
        int part = 0;
        int value = -1;
        for (int i = 0; i <= s.length(); i++) {
            char c = i < s.length() ? s.charAt(i) : '.';
            if (c == '.') {
                if (value < 0 || part == 4) {
                    return null;
                }
                out[part++] = (byte) value;
                value = -1;
            } else if (c >= '0' && c <= '9') {
                value = value < 0 ? c - '0' : value * 10 + (c - '0');
                if (value > 255) {
                    return null;
                }
            } else {
                return null;
            }
        }
        return part == 4 ? out : null;
    }

    /**
     * RFC 8305, section 4: the addresses with the families alternating, IPv6 first (the family the
     * RFC prefers when it is there), each family in the order the resolver gave; duplicates (a
     * hosts file and DNS both naming an address) once.
     */
    public static List<InetAddress> interleave(List<InetAddress> addresses) {
        List<InetAddress> v6 = new ArrayList<>();
        List<InetAddress> v4 = new ArrayList<>();
        for (InetAddress a : new LinkedHashSet<>(addresses)) {
            (a instanceof Inet6Address ? v6 : v4).add(a);
        }
        List<InetAddress> out = new ArrayList<>(v6.size() + v4.size());
        for (int i = 0; i < Math.max(v6.size(), v4.size()); i++) {
            if (i < v6.size()) {
                out.add(v6.get(i));
            }
            if (i < v4.size()) {
                out.add(v4.get(i));
            }
        }
        return out;
    }

    /** {@code a} carrying {@code host} as its name, so messages and TLS name the host asked for. */
    public static InetAddress named(String host, InetAddress a) throws UnknownHostException {
        // never a.getHostName(): without a name it does a reverse lookup, which blocks
        if (a instanceof Inet6Address v6) {
            return v6.getScopeId() == 0
                    ? Inet6Address.getByAddress(host, v6.getAddress(), (java.net.NetworkInterface) null)
                    : Inet6Address.getByAddress(host, v6.getAddress(), v6.getScopeId());
        }
        return Inet4Address.getByAddress(host, a.getAddress());
    }
}
