package dev.loop.examples.resp;

import java.util.Arrays;

/**
 * A byte string as a hash or set member: equality and hash over the bytes (an array's own are by
 * identity). Immutable; the bytes are the argument array the parser made, never copied.
 */
final class Blob implements Comparable<Blob> {
    final byte[] bytes;
    private final int hash;

    Blob(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Blob b && b.hash == hash && Arrays.equals(b.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    /** Unsigned byte order, as Redis' memcmp. */
    @Override
    public int compareTo(Blob o) {
        return Arrays.compareUnsigned(bytes, o.bytes);
    }

    @Override
    public String toString() {
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
}
