package dev.loop.examples.http;

import dev.loop.Loop;
import dev.loop.examples.io.OutputBuffer;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * What the connections of one loop share: the buffer responses are encoded into, the cached
 * {@code Date} line, a chunk buffer for file reads, and the server's settings. Not thread-safe: its
 * loop's thread only, which is why sharing needs no lock.
 */
final class HttpLoopState {
    final Loop loop;
    final HttpLimits limits;
    /** Null when no directory is served. */
    final StaticFiles files;
    /** Requests refused with a 4xx or 5xx, on every loop: counted, never logged one by one. */
    final LongAdder refused;
    final OutputBuffer out = new OutputBuffer(64 * 1024);
    final OutputBuffer scratch = new OutputBuffer(256);
    final HttpDate date = new HttpDate();
    /** The Prometheus text of every loop's metrics (--metrics), or null: then /metrics is an ordinary path. */
    Supplier<String> metrics;
    private ByteBuffer chunk;

    HttpLoopState(Loop loop, HttpLimits limits, StaticFiles files, LongAdder refused) {
        this.loop = loop;
        this.refused = refused;
        this.limits = limits;
        this.files = files;
    }

    /** The loop's buffer for on-loop file reads (a file stream reads and writes it in one callback). */
    ByteBuffer chunk() {
        if (chunk == null) {
            chunk = ByteBuffer.allocateDirect(FileStream.CHUNK);
        }
        return chunk;
    }
}
