package dev.loop.examples.resp;

import java.util.LinkedHashMap;

/**
 * A hash's fields and values. Not thread-safe: the data loop's. Fields keep the order they were
 * first set in, which is the order redis-server answers in for the hashes it keeps as a listpack
 * (up to 128 fields of up to 64 bytes); past that its order is its table's, which no client may
 * rely on.
 */
final class HashValue {
    final LinkedHashMap<Blob, byte[]> map = new LinkedHashMap<>();

    int size() {
        return map.size();
    }
}
