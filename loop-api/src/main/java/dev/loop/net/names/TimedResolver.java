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

/**
 * A timeout, on the asking loop's clock, around another {@link Resolver}: a lookup that takes
 * longer fails with an {@link UnknownHostException} naming the host, and the lookup under it is
 * cancelled. Every failure is made to name the host. Thread-safe.
 */
public final class TimedResolver implements Resolver {
    private final Resolver delegate;
    private final Duration timeout;

    public TimedResolver(Resolver delegate, Duration timeout) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("a lookup timeout must be positive: " + timeout);
        }
        this.timeout = timeout;
    }

    @Override
    public LoopFuture<List<InetAddress>> resolve(Loop loop, String host) {
        Promise<List<InetAddress>> result = loop.newPromise();
        LoopFuture<List<InetAddress>> lookup = delegate.resolve(loop, host);
        TimerHandle timer = loop.callLater(timeout, () -> {
            if (result.tryFail(new UnknownHostException(host + ": lookup timed out after " + timeout.toMillis() + " ms"))) {
                lookup.cancel("lookup timed out");
            }
        });
        lookup.onDone(f -> {
            timer.cancel();
            if (f.isSuccess()) {
                List<InetAddress> found = f.result();
                if (found == null || found.isEmpty()) {
                    result.tryFail(new UnknownHostException(host + ": no addresses"));
                } else {
                    result.tryComplete(found);
                }
            } else if (f.isCancelled()) {
                result.tryFail(new UnknownHostException(host + ": lookup cancelled"));
            } else {
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
        return delegate + " within " + timeout.toMillis() + " ms";
    }
}
