package dev.loop.examples.resp;

/**
 * Redis' glob patterns over bytes ({@code KEYS}, {@code SCAN MATCH}): {@code *} any run,
 * {@code ?} any byte, {@code [abc]}, {@code [a-z]} (a reversed range is swapped), {@code [^x]},
 * and {@code \} taking the next byte literally, case-sensitive, with Redis' edge cases: an
 * unclosed {@code [} runs to the pattern's end, {@code []} matches nothing, a trailing {@code \}
 * is itself, and an empty string matches only the empty pattern.
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
            int next = pi < p.length ? token(p, pi, s[si]) : -1;
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
    private static int token(byte[] p, int pi, byte c) {
        int n = p.length;
        switch (p[pi]) {
            case '?':
                return pi + 1;
            case '\\':
                if (n - pi >= 2) {
                    return p[pi + 1] == c ? pi + 2 : -1;
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
                        if (p[j] == c) {
                            match = true;
                        }
                    } else if (j < n && p[j] == ']') {
                        break;
                    } else if (j >= n) {
                        j--; // unclosed: the class is the rest of the pattern
                        break;
                    } else if (n - j >= 3 && p[j + 1] == '-') {
                        int lo = Math.min(p[j], p[j + 2]);
                        int hi = Math.max(p[j], p[j + 2]);
                        if (c >= lo && c <= hi) {
                            match = true;
                        }
                        j += 2;
                    } else if (p[j] == c) {
                        match = true;
                    }
                    j++;
                }
                return match != not ? j + 1 : -1;
            }
            default:
                return p[pi] == c ? pi + 1 : -1;
        }
    }
}
