package dev.loop.net.names;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Resolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operating system's lookup ({@link InetAddress#getAllByName}: the hosts file, then DNS, as
 * {@code nsswitch.conf} says) on a virtual thread ({@link Loop#offload}); {@link TimedResolver}
 * puts the timeout around it. Thread-safe.
 */
public final class SystemResolver implements Resolver {
    /**
     * A lookup that takes longer fails. glibc gives up on a silent name server after 5 s and asks
     * twice ({@code resolv.conf}'s defaults): 10 s lets that run its course once.
     */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

    /**
     * The most lookups one resolver runs at once. A lookup's thread cannot be stopped, only its
     * result dropped, so a flood of names that never answer would otherwise hold a thread each for
     * as long as the C library waits; beyond this many, a lookup fails at once, saying why.
     */
    public static final int MAX_IN_FLIGHT = 256;

    /** What {@link Resolver#system()} is: one set of threads for every loop of the JVM. */
    public static final Resolver DEFAULT = new TimedResolver(new SystemResolver(), DEFAULT_TIMEOUT);

    private final AtomicInteger inFlight = new AtomicInteger();

    @Override
    public LoopFuture<List<InetAddress>> resolve(Loop loop, String host) {
        if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
            inFlight.decrementAndGet();
            Promise<List<InetAddress>> refused = loop.newPromise();
            refused.fail(new UnknownHostException(host + ": not looked up, " + MAX_IN_FLIGHT
                    + " lookups of this resolver are already running (names that do not answer?)"));
            return refused;
        }
        try {
            // cancelling interrupts the thread, which getaddrinfo ignores: the result is dropped
            return loop.offload(() -> {
                try {
                    return List.of(InetAddress.getAllByName(host));
                } finally {
                    inFlight.decrementAndGet(); // counts threads, which outlive a dropped lookup
                }
            });
        } catch (RuntimeException closed) {
            inFlight.decrementAndGet();
            throw closed;
        }
    }

    @Override
    public String toString() {
        return "SystemResolver[" + inFlight.get() + " in flight]";
    }
}
