package dev.loop.examples.http;

/**
 * Checks a host and port against RFC 3986's authority grammar (section 3.2), as RFC 9110 (7.2)
 * and RFC 9112 (3.2) require of {@code Host} and of the request target's authority: {@code
 * uri-host [ ":" port ]}, where the host is an IP literal in brackets or a reg-name (which
 * includes IPv4 addresses), and the port is digits, possibly none. Works on the input array,
 * without allocating. Thread-safe (stateless).
 */
final class Authority {
    /** RFC 3986 unreserved and sub-delims: the bytes of a reg-name besides pct-encoded ones. */
    private static final boolean[] REG_NAME = new boolean[256];

    static {
        for (char c = '0'; c <= '9'; c++) {
            REG_NAME[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            REG_NAME[c] = true;
            REG_NAME[c - 32] = true;
        }
        for (char c : "-._~!$&'()*+,;=".toCharArray()) {
            REG_NAME[c] = true;
        }
    }

    private Authority() {
    }

    /**
     * Whether {@code b[from, to)} is {@code uri-host [ ":" port ]}. An empty host is valid here
     * (a {@code Host} field for a target without an authority); callers that need one check.
     */
    static boolean isHostAndPort(byte[] b, int from, int to) {
        int hostEnd = hostEnd(b, from, to);
        if (hostEnd < 0) {
            return false;
        }
        if (hostEnd == to) {
            return true;
        }
        if (b[hostEnd] != ':') {
            return false;
        }
        for (int i = hostEnd + 1; i < to; i++) {
            if (!HttpParser.isDigit(b[i])) {
                return false;
            }
        }
        return true;
    }

    /** The length of the host part of a valid {@code b[from, to)}: what precedes the port. */
    static int hostLength(byte[] b, int from, int to) {
        return hostEnd(b, from, to) - from;
    }

    /** Index just past the host at {@code from}, or -1 if what is there is not a host. */
    private static int hostEnd(byte[] b, int from, int to) {
        if (from < to && b[from] == '[') {
            int close = HttpParser.indexOf(b, from, to, ']');
            if (close < 0 || !isIpLiteral(b, from + 1, close)) {
                return -1;
            }
            return close + 1;
        }
        int i = from;
        while (i < to && b[i] != ':') {
            if (b[i] == '%') {
                if (i + 2 >= to || HttpParser.hex(b[i + 1]) < 0 || HttpParser.hex(b[i + 2]) < 0) {
                    return -1;
                }
                i += 3;
            } else if (REG_NAME[b[i] & 0xff]) {
                i++;
            } else {
                return -1;
            }
        }
        return i;
    }

    /** {@code IPv6address / IPvFuture}, the inside of an IP-literal's brackets. */
    private static boolean isIpLiteral(byte[] b, int from, int to) {
        if (from < to && (b[from] == 'v' || b[from] == 'V')) {
            int i = from + 1;
            while (i < to && HttpParser.hex(b[i]) >= 0) {
                i++;
            }
            if (i == from + 1 || i >= to || b[i] != '.' || i + 1 >= to) {
                return false;
            }
            for (i++; i < to; i++) {
                if (!REG_NAME[b[i] & 0xff] && b[i] != ':') {
                    return false;
                }
            }
            return true;
        }
        return isIpv6(b, from, to);
    }

    /**
     * RFC 3986's IPv6address: eight groups of one to four hex digits separated by colons, at most
     * one {@code ::} standing for one or more zero groups, the last two groups possibly an IPv4
     * address.
     */
    static boolean isIpv6(byte[] b, int from, int to) {
        int groups = 0;
        boolean elided = false;
        int i = from;
        if (to - from >= 2 && b[i] == ':' && b[i + 1] == ':') {
            elided = true;
            i += 2;
            if (i == to) {
                return true; // "::"
            }
        } else if (i < to && b[i] == ':') {
            return false; // a lone leading colon
        }
        while (i < to) {
            int s = i;
            while (i < to && i - s < 5 && HttpParser.hex(b[i]) >= 0) {
                i++;
            }
            if (i < to && b[i] == '.') {
                // the last 32 bits as an IPv4 address
                if (!isIpv4(b, s, to)) {
                    return false;
                }
                groups += 2;
                break;
            }
            if (i == s || i - s > 4) {
                return false;
            }
            groups++;
            if (i == to) {
                break;
            }
            if (b[i] != ':') {
                return false;
            }
            i++;
            if (i < to && b[i] == ':') {
                if (elided) {
                    return false; // a second "::"
                }
                elided = true;
                i++;
            } else if (i == to) {
                return false; // a lone trailing colon
            }
        }
        return elided ? groups <= 7 : groups == 8;
    }

    /** Four dec-octets (0-255, no leading zeros) separated by dots, exactly {@code b[from, to)}. */
    static boolean isIpv4(byte[] b, int from, int to) {
        int i = from;
        for (int part = 0; part < 4; part++) {
            if (part > 0) {
                if (i >= to || b[i] != '.') {
                    return false;
                }
                i++;
            }
            int s = i;
            int v = 0;
            while (i < to && HttpParser.isDigit(b[i]) && i - s < 3) {
                v = v * 10 + (b[i] - '0');
                i++;
            }
            if (i == s || v > 255 || (i - s > 1 && b[s] == '0')) {
                return false;
            }
        }
        return i == to;
    }
}
