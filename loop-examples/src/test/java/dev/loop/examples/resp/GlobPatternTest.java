package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The one glob matcher KEYS, SCAN MATCH, PSUBSCRIBE, PUBSUB CHANNELS and (without case) CONFIG GET
 * share: Redis' rules, on bytes, and never exponential time.
 */
class GlobPatternTest {
    private static boolean m(String pattern, String subject) {
        return GlobPattern.matches(bytes(pattern), bytes(subject));
    }

    private static boolean nocase(String pattern, String subject) {
        return GlobPattern.matches(bytes(pattern), bytes(subject), true);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void redisGlobRules() {
        assertTrue(m("news.*", "news.art"));
        assertFalse(m("news.*", "new.art"));
        assertTrue(m("h?llo", "hello"));
        assertFalse(m("h?llo", "hllo"));
        assertTrue(m("h[ae]llo", "hallo"));
        assertFalse(m("h[ae]llo", "hillo"));
        assertTrue(m("h[^e]llo", "hallo"));
        assertFalse(m("h[^e]llo", "hello"));
        assertTrue(m("h[a-b]llo", "hbllo"));
        assertTrue(m("h[b-a]llo", "hallo"), "a reversed range is the same range, as in Redis");
        assertTrue(m("a\\*b", "a*b"));
        assertFalse(m("a\\*b", "axb"));
        assertFalse(m("News", "news"), "case-sensitive, unlike CONFIG GET");
        assertTrue(m("a*b*c", "aXXbYYc"));
        assertFalse(m("a*b*c", "aXXbYY"));
    }

    @Test
    void redisEdgeCases() {
        assertTrue(m("", ""));
        assertFalse(m("*", ""), "an empty subject matches only the empty pattern, as Redis' matcher");
        assertTrue(m("[abc", "b"), "an unclosed class runs to the pattern's end");
        assertFalse(m("[abc", "d"));
        assertFalse(m("a[]", "a]"), "[] matches nothing");
        assertTrue(m("a\\", "a\\"), "a trailing backslash is itself");
        assertTrue(m("[\\]]", "]"), "an escape inside a class");
        assertTrue(m("[a-]", "_"), "a dash before the closing bracket makes a range from ']' to 'a', as Redis reads it");
        assertFalse(m("[a-]", "-"));
    }

    @Test
    void withoutCaseLikeConfigGet() {
        assertTrue(nocase("*", "save"));
        assertTrue(nocase("SA?E", "save"));
        assertTrue(nocase("*a*e*", "save"));
        assertTrue(nocase("[R-T]ave", "save"), "ranges fold too");
        assertTrue(nocase("\\Save", "save"));
        assertFalse(nocase("*x*", "save"));
        assertFalse(nocase("sav", "save"));
        assertFalse(nocase("*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "a".repeat(60)), "and quickly");
    }

    @Test
    void aPatternBuiltToBacktrackTakesLinearSteps() {
        String pattern = "*a".repeat(50) + "b";
        String subject = "a".repeat(20_000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertFalse(m(pattern, subject));
            assertFalse(m("*a*a*a*a*a*a*a*a*a*a*a*a*b", subject));
            assertTrue(m("*a*a*a*a*a*a*a*a*a*a*a*a*", subject));
        });
    }
}
