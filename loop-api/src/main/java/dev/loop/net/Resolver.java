package dev.loop.net;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.net.names.CachingResolver;
import dev.loop.net.names.SystemResolver;
import dev.loop.net.names.TimedResolver;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;

/**
 * Turns a host name into addresses, for {@link Net#connect(Loop, String, int, ConnectionOptions)}
 * (set with {@link ConnectionOptions#withResolver}). {@link #system()} asks the operating system
 * (the hosts file, then DNS, as {@code nsswitch.conf} says) on a virtual thread; implement this to
 * use anything else: a DNS client of your own, service discovery, a fixed table in tests.
 *
 * <p>The caller never hands an IP literal to a resolver ({@code 127.0.0.1}, {@code ::1},
 * {@code [::1]}): those are addresses already. A resolver is called on {@code loop}'s thread and
 * must not block it. One instance may serve several loops at once, so implementations are
 * thread-safe.
 */
@FunctionalInterface
public interface Resolver {

    /** The {@linkplain #system(Duration) system's lookup} with a 10 s timeout, and no cache of its own. */
    Duration DEFAULT_TIMEOUT = SystemResolver.DEFAULT_TIMEOUT;

    /**
     * Looks {@code host} up.
     *
     * @return a future of {@code loop} (from {@link Loop#newPromise()} or {@link Loop#offload}) of the
     *         addresses, at least one, in the order the source prefers them (the caller sorts them by
     *         family for Happy Eyeballs, keeping that order within each family); it fails with an
     *         {@link java.net.UnknownHostException} naming {@code host} when there is none, the lookup
     *         failed or it timed out. Cancelling it gives the lookup up: a result that comes
     *         afterwards is dropped.
     */
    LoopFuture<List<InetAddress>> resolve(Loop loop, String host);

    /**
     * The operating system's lookup ({@link InetAddress#getAllByName}), off the loop thread, failing
     * after {@link #DEFAULT_TIMEOUT}. The JDK keeps a cache of its own (30 s for a name found, 10 s
     * for one not found: {@code networkaddress.cache.ttl}).
     */
    static Resolver system() {
        return SystemResolver.DEFAULT;
    }

    /**
     * The operating system's lookup, failing after {@code timeout}. The thread doing a lookup that
     * timed out or was cancelled cannot be stopped (the C library's call does not listen to
     * interrupts): it ends when the system's own resolver gives up ({@code resolv.conf}'s
     * {@code timeout} and {@code attempts}), and at most {@value SystemResolver#MAX_IN_FLIGHT}
     * lookups run at once per resolver; more fail at once, saying so.
     */
    static Resolver system(Duration timeout) {
        return new TimedResolver(new SystemResolver(), timeout);
    }

    /**
     * This resolver with a time limit on the asking loop's clock: a lookup that takes longer fails
     * with an {@link java.net.UnknownHostException} naming the host ("lookup timed out"), and the
     * lookup under it is cancelled.
     */
    default Resolver withTimeout(Duration timeout) {
        return new TimedResolver(this, timeout);
    }

    /**
     * This resolver with a cache: a name found is answered from memory for {@code ttl}, measured on
     * the clock of the loop that asks (share a cache only among loops on the same clock: the
     * system's, or one test clock), and at most {@code maxEntries} names are kept, the least
     * recently used going first. Failures are not cached.
     */
    default Resolver cached(Duration ttl, int maxEntries) {
        return new CachingResolver(this, ttl, maxEntries);
    }
}
