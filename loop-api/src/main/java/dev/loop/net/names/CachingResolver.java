package dev.loop.net.names;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Resolver;
import java.net.InetAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A cache in front of another {@link Resolver}: names found are kept for a time to live on the
 * asking loop's clock, at most a fixed number of them (least recently used first out), failures
 * never. Thread-safe: one cache may serve the loops of a group.
 */
public final class CachingResolver implements Resolver {
    private final Resolver delegate;
    private final long ttlNanos;
    private final int maxEntries;
    private final Map<String, Cached> entries; // guarded by itself

    private record Cached(List<InetAddress> addresses, long expiresAt) {
    }

    public CachingResolver(Resolver delegate, Duration ttl, int maxEntries) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero()) {
            throw new IllegalArgumentException("a cache's time to live must be positive: " + ttl);
        }
        if (maxEntries < 1) {
            throw new IllegalArgumentException("a cache holds at least one name: " + maxEntries);
        }
        this.ttlNanos = ttl.toNanos();
        this.maxEntries = maxEntries;
        this.entries = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, Cached> eldest) {
                return size() > CachingResolver.this.maxEntries;
            }
        };
    }

    @Override
    public LoopFuture<List<InetAddress>> resolve(Loop loop, String host) {
        String key = host.toLowerCase(Locale.ROOT); // names are case-insensitive (RFC 4343)
        long now = loop.time();
        synchronized (entries) {
            Cached e = entries.get(key);
            if (e != null) {
                if (now - e.expiresAt < 0) {
                    Promise<List<InetAddress>> hit = loop.newPromise();
                    hit.complete(e.addresses);
                    return hit;
                }
                entries.remove(key);
            }
        }
        LoopFuture<List<InetAddress>> lookup = delegate.resolve(loop, host);
        lookup.onDone(f -> {
            if (f.isSuccess()) {
                synchronized (entries) {
                    entries.put(key, new Cached(List.copyOf(f.result()), loop.time() + ttlNanos));
                }
            }
        });
        return lookup;
    }

    /** Names held right now, expired ones included until they are asked for again. */
    public int size() {
        synchronized (entries) {
            return entries.size();
        }
    }

    @Override
    public String toString() {
        return "CachingResolver[ttl " + ttlNanos / 1_000_000 + " ms, " + size() + "/" + maxEntries + " names, over "
                + delegate + "]";
    }
}
