package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class JsonWriterTest {

    @Test
    void everyRowWithEverySampleAndTheTargets() {
        Results r = Fixtures.sample();
        String json = JsonWriter.write(r, Targets.evaluate(r));
        assertTrue(json.contains("\"samples\": [180000000, 200000000, 190000000]"), json);
        assertTrue(json.contains("\"contender\": \"python uvloop\""), json);
        assertTrue(json.contains("\"note\": \"n/a (no sockets)\""), json);
        assertTrue(json.contains("\"samples\": [], \"median\": null"), json); // NaN is not JSON
        assertTrue(json.contains("\"p50Micros\": 27.5"), json);
        assertTrue(json.contains("\"verdict\": \"met\""), json);
        assertTrue(json.contains("\"machine\": \"test <machine> & \\\"co\\\"\""), json);
        assertEquals(6, json.split("\"workload\":", -1).length - 1);
        assertBalanced(json);
    }

    @Test
    void numbersAndStrings() {
        assertEquals("null", JsonWriter.number(Double.NaN));
        assertEquals("null", JsonWriter.number(Double.POSITIVE_INFINITY));
        assertEquals("42", JsonWriter.number(42));
        assertEquals("0.5", JsonWriter.number(0.5));
        assertEquals("143770", JsonWriter.number(143_770.0)); // trailing zeros of an integer stay
        assertEquals("1436.5", JsonWriter.number(1436.5));
        assertEquals("0.000012", JsonWriter.number(1.2e-5));
        for (double v : new double[] {19.0 / 6, 1.6065e8 + 0.25, 3394.01, 2.5e-9}) {
            assertEquals(v, Double.parseDouble(JsonWriter.number(v))); // every digit kept
        }
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\"", JsonWriter.string("a\"b\\c\nd\u0001"));
    }

    @Test
    void emptyResultsAreStillAnObject() {
        String json = JsonWriter.write(new Results(), List.of());
        assertTrue(json.contains("\"rows\": [\n  ]"), json);
        assertBalanced(json);
    }

    /** Brackets and braces outside strings balance: a cheap structural check without a parser. */
    static void assertBalanced(String json) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
                continue;
            }
            switch (c) {
                case '"' -> inString = true;
                case '{', '[' -> depth++;
                case '}', ']' -> depth--;
                default -> { }
            }
            assertTrue(depth >= 0, "closes too early at " + i);
        }
        assertEquals(0, depth);
    }
}
