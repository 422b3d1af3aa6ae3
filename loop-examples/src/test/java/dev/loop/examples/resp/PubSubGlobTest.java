package dev.loop.examples.resp;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** PSUBSCRIBE's patterns: Redis' glob rules, on bytes, and never exponential time. */
class PubSubGlobTest {
    private static boolean m(String pattern, String channel) {
        return PubSub.Glob.matches(pattern.getBytes(StandardCharsets.UTF_8), channel.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void redisGlobRules() {
        assertTrue(m("*", ""));
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
    void aPatternBuiltToBacktrackTakesLinearSteps() {
        String pattern = "*a".repeat(50) + "b";
        String channel = "a".repeat(20_000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> assertFalse(m(pattern, channel)));
    }
}
