package dev.loop.net.names;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Resolver;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The operating system's lookup ({@link InetAddress#getAllByName}: the hosts file, then DNS, as
 * {@code nsswitch.conf} says) on a virtual thread ({@link Loop#offload}), with a timeout. Thread-safe.
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

    public static final SystemResolver DEFAULT = new SystemResolver(DEFAULT_TIMEOUT);

    private final Duration timeout;
    private final AtomicInteger inFlight = new AtomicInteger();

    public SystemResolver(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a lookup timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    @Override
    public LoopFuture<List<InetAddress>> resolve(Loop loop, String host) {
        Promise<List<InetAddress>> result = loop.newPromise();
        if (inFlight.incrementAndGet() > MAX_IN_FLIGHT) {
            inFlight.decrementAndGet();
            result.fail(new UnknownHostException(host + ": not looked up, " + MAX_IN_FLIGHT
                    + " lookups of this resolver are already running (names that do not answer?)"));
            return result;
        }
        LoopFuture<InetAddress[]> lookup;
        try {
            lookup = loop.offload(() -> {
                try {
                    return InetAddress.getAllByName(host);
                } finally {
                    inFlight.decrementAndGet(); // counts threads, which outlive a dropped lookup
                }
            });
        } catch (RuntimeException closed) {
            inFlight.decrementAndGet();
            throw closed;
        }
        TimerHandle timer = loop.callLater(timeout, () -> {
            if (result.tryFail(new UnknownHostException(host + ": lookup timed out after " + timeout.toMillis() + " ms"))) {
                lookup.cancel("lookup timed out");
            }
        });
        lookup.onDone(f -> {
            timer.cancel();
            if (f.isSuccess()) {
                InetAddress[] found = f.result();
                if (found.length == 0) {
                    result.tryFail(new UnknownHostException(host + ": no addresses"));
                } else {
                    result.tryComplete(List.of(found));
                }
            } else if (!f.isCancelled()) {
                result.tryFail(named(host, f.exception()));
            }
        });
        result.onDone(f -> {
            if (f.isCancelled()) {
                timer.cancel();
                lookup.cancel(f.cancelReason());
            }
        });
        return result;
    }

    /** The JDK's message names the host ("x.invalid: Name or service not known"); anything else is made to. */
    private static Throwable named(String host, Throwable e) {
        if (e instanceof UnknownHostException u && String.valueOf(u.getMessage()).contains(host)) {
            return u;
        }
        UnknownHostException named = new UnknownHostException(host + ": lookup failed: " + e);
        named.initCause(e);
        return named;
    }

    @Override
    public String toString() {
        return "SystemResolver[timeout " + timeout.toMillis() + " ms, " + inFlight.get() + " in flight]";
    }
}
