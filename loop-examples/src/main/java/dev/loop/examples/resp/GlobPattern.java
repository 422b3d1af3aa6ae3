package dev.loop.examples.resp;

/**
 * Redis' glob patterns over bytes ({@code KEYS}, {@code SCAN MATCH}, {@code PSUBSCRIBE},
 * {@code PUBSUB CHANNELS}, and {@code CONFIG GET} without case): {@code *} any run,
 * {@code ?} any byte, {@code [abc]}, {@code [a-z]} (a reversed range is swapped), {@code [^x]},
 * and {@code \} taking the next byte literally, case-sensitive, with Redis' edge cases: an
 * unclosed {@code [} runs to the pattern's end, {@code []} matches nothing, a trailing {@code \}
 * is itself, and an empty string matches only the empty pattern. Without case, ASCII letters
 * are folded on both sides, ranges included, as Redis' {@code nocase} does.
 *
 * <p>Two pointers and a return to the last {@code *} on a mismatch: O(pattern x string) at worst,
 * never exponential, for any pattern a client sends ({@code *a*a*a*a*b} on a long run of
 * {@code a}s costs the product, not its powers). Every token but {@code *} matches exactly one
 * byte, which is what makes the last star the only one worth returning to.
 */
final class GlobPattern {
    private GlobPattern() {
    }

    static boolean matches(byte[] p, byte[] s) {
        return matches(p, s, false);
    }

    static boolean matches(byte[] p, byte[] s, boolean nocase) {
        if (s.length == 0) {
            return p.length == 0;
        }
        int pi = 0;
        int si = 0;
        int starP = -1;
        int starS = 0;
        while (si < s.length) {
            if (pi < p.length && p[pi] == '*') {
                while (pi < p.length && p[pi] == '*') {
                    pi++;
                }
                if (pi == p.length) {
                    return true;
                }
                starP = pi;
                starS = si;
                continue;
            }
            int next = pi < p.length ? token(p, pi, fold(s[si], nocase), nocase) : -1;
            if (next >= 0) {
                pi = next;
                si++;
            } else if (starP >= 0) {
                pi = starP;
                si = ++starS;
            } else {
                return false;
            }
        }
        while (pi < p.length && p[pi] == '*') {
            pi++;
        }
        return pi == p.length;
    }

    /** Where the token at {@code pi} ends if it matches {@code c}, else -1. */
    private static int token(byte[] p, int pi, byte c, boolean nocase) {
        int n = p.length;
        switch (p[pi]) {
            case '?':
                return pi + 1;
            case '\\':
                if (n - pi >= 2) {
                    return fold(p[pi + 1], nocase) == c ? pi + 2 : -1;
                }
                return c == '\\' ? pi + 1 : -1;
            case '[': {
                int j = pi + 1;
                boolean not = j < n && p[j] == '^';
                if (not) {
                    j++;
                }
                boolean match = false;
                while (true) {
                    if (j < n && p[j] == '\\' && n - j >= 2) {
                        j++;
                        if (fold(p[j], nocase) == c) {
                            match = true;
                        }
                    } else if (j < n && p[j] == ']') {
                        break;
                    } else if (j >= n) {
                        j--; // unclosed: the class is the rest of the pattern
                        break;
                    } else if (n - j >= 3 && p[j + 1] == '-') {
                        int a = fold(p[j], nocase);
                        int b = fold(p[j + 2], nocase);
                        int lo = Math.min(a, b);
                        int hi = Math.max(a, b);
                        if (c >= lo && c <= hi) {
                            match = true;
                        }
                        j += 2;
                    } else if (fold(p[j], nocase) == c) {
                        match = true;
                    }
                    j++;
                }
                return match != not ? j + 1 : -1;
            }
            default:
                return fold(p[pi], nocase) == c ? pi + 1 : -1;
        }
    }

    private static byte fold(byte b, boolean nocase) {
        return nocase && b >= 'A' && b <= 'Z' ? (byte) (b + ('a' - 'A')) : b;
    }
}
