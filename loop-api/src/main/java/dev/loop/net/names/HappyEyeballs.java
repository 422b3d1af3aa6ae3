package dev.loop.net.names;

import dev.loop.Loop;
import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.TimerHandle;
import dev.loop.net.Connection;
import dev.loop.net.ConnectionOptions;
import dev.loop.net.Net;
import dev.loop.net.TlsOptions;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One connect by host name (RFC 8305, Happy Eyeballs v2), loop thread only: the lookup, then
 * connects to the addresses in {@linkplain Hosts#interleave alternating families}, the next one
 * starting when {@link ConnectionOptions#attemptDelay()} has passed or at once when an attempt
 * fails; the first to connect wins and every other is cancelled (its socket closed), and TLS, if
 * asked for, runs over the winner only, with the host name for SNI and verification.
 *
 * <p>{@link ConnectionOptions#connectTimeout()} bounds the whole (lookup, attempts and handshake),
 * with one timer. When every attempt fails, the first attempt's failure is the error, the others
 * its suppressed ones, in order.
 */
public final class HappyEyeballs {
    private final Loop loop;
    private final String host;
    private final int port;
    private final ConnectionOptions options;
    private final ConnectionOptions attemptOptions; // no timer per attempt: the deadline covers them
    private final TlsOptions tls;
    private final Promise<Connection> result;

    private LoopFuture<List<InetAddress>> lookup;
    private List<InetAddress> addresses = List.of();
    private final List<LoopFuture<Connection>> attempts = new ArrayList<>();
    private Throwable[] failures;   // by attempt, in the order the attempts started
    private int failed;
    private TimerHandle nextAttempt;
    private TimerHandle deadline;
    private Connection winner;      // connected, its TLS handshake perhaps still running
    private boolean literal;

    private HappyEyeballs(Loop loop, String host, int port, ConnectionOptions options, TlsOptions tls) {
        this.loop = loop;
        this.host = host;
        this.port = port;
        this.options = options;
        this.attemptOptions = options.withConnectTimeout(Duration.ZERO);
        this.tls = tls;
        this.result = loop.newPromise();
    }

    /** Starts connecting to {@code host}; {@code tls} null for plain TCP. */
    public static LoopFuture<Connection> connect(Loop loop, String host, int port, ConnectionOptions options,
                                                 TlsOptions tls) {
        HappyEyeballs h = new HappyEyeballs(loop, host, port, options, tls);
        h.start();
        return h.result;
    }

    private void start() {
        result.onDone(f -> {
            if (f.isCancelled()) {
                stopAll(f.cancelReason());
            }
        });
        if (!options.connectTimeout().isZero()) {
            deadline = loop.callLater(options.connectTimeout(), this::timedOut);
        }
        InetAddress address;
        try {
            address = Hosts.literal(host);
        } catch (UnknownHostException e) {
            fail(e);
            return;
        }
        if (address != null) {
            literal = true;
            found(List.of(address));
            return;
        }
        try {
            lookup = options.resolver().resolve(loop, host);
        } catch (RuntimeException e) {
            fail(unknown(host + ": the resolver " + options.resolver() + " failed", e));
            return;
        }
        lookup.onDone(f -> {
            if (result.isDone()) {
                return;
            }
            if (f.isSuccess()) {
                List<InetAddress> r = f.result();
                if (r == null || r.isEmpty()) {
                    fail(new UnknownHostException(host + ": the resolver found no addresses"));
                } else {
                    found(r);
                }
            } else if (f.isCancelled()) {
                fail(new UnknownHostException(host + ": the lookup was cancelled"));
            } else {
                Throwable e = f.exception();
                fail(e instanceof UnknownHostException ? e : unknown(host + ": lookup failed: " + e, e));
            }
        });
    }

    private void found(List<InetAddress> found) {
        List<InetAddress> ordered = Hosts.interleave(found);
        List<InetAddress> named = new ArrayList<>(ordered.size());
        try {
            for (InetAddress a : ordered) {
                named.add(literal ? a : Hosts.named(host, a));
            }
        } catch (UnknownHostException e) {
            fail(e);
            return;
        }
        addresses = named;
        failures = new Throwable[named.size()];
        startNext();
    }

    /** Starts the next address's attempt, if any is left and nothing has won. */
    private void startNext() {
        cancel(nextAttempt);
        nextAttempt = null;
        int i = attempts.size();
        if (result.isDone() || winner != null || i == addresses.size()) {
            return;
        }
        // the timer first: an attempt that fails at once starts the next one, and replaces it
        if (!options.attemptDelay().isZero() && i + 1 < addresses.size()) {
            nextAttempt = loop.callLater(options.attemptDelay(), this::startNext);
        }
        LoopFuture<Connection> a;
        try {
            a = Net.connect(loop, new InetSocketAddress(addresses.get(i), port), attemptOptions);
        } catch (RuntimeException e) { // the loop is closing: nothing more can start
            attempts.add(null);
            attemptFailed(i, e);
            return;
        }
        attempts.add(a);
        a.onDone(f -> attemptDone(i, f));
    }

    private void attemptDone(int i, LoopFuture<Connection> f) {
        if (result.isDone() || winner != null) {
            if (f.isSuccess()) {
                f.result().close(); // connected in the same iteration as the winner
            }
            return;
        }
        if (f.isSuccess()) {
            won(f.result());
        } else if (!f.isCancelled()) {
            attemptFailed(i, f.exception());
        }
    }

    private void attemptFailed(int i, Throwable e) {
        failures[i] = e;
        if (++failed == addresses.size()) {
            Throwable first = failures[0];
            for (int k = 1; k < failures.length; k++) {
                first.addSuppressed(failures[k]);
            }
            fail(first);
        } else {
            startNext(); // at once: no reason to wait out the delay
        }
    }

    private void won(Connection c) {
        winner = c;
        cancel(nextAttempt);
        nextAttempt = null;
        for (LoopFuture<Connection> a : attempts) {
            if (a != null && !a.isDone()) {
                a.cancel("another address of " + host + " connected first");
            }
        }
        if (tls == null) {
            finish(c);
            return;
        }
        TlsOptions t = literal || tls.serverName() != null ? tls : tls.withServerName(host);
        c.startTls(t).onDone(f -> {
            if (f.isSuccess()) {
                finish(c);
            } else if (!result.isDone()) {
                fail(f.exception()); // the handshake closed the connection already
            }
        });
    }

    private void finish(Connection c) {
        cancel(deadline);
        if (!result.tryComplete(c)) {
            c.close(); // given up on meanwhile
        }
    }

    private void timedOut() {
        String where = addresses.isEmpty() ? "looking the name up"
                : winner != null ? "in the TLS handshake"
                : attempts.size() + " of " + addresses.size() + " addresses tried";
        IOException e = new SocketTimeoutException("connect to " + host + ":" + port + " timed out after "
                + options.connectTimeout().toMillis() + " ms (" + where + ")");
        if (failures != null) {
            for (Throwable f : failures) {
                if (f != null) {
                    e.addSuppressed(f);
                }
            }
        }
        fail(e);
    }

    private void fail(Throwable e) {
        if (result.tryFail(e)) {
            stopAll("connect to " + host + " failed");
        }
    }

    /** Gives up everything still running: timers, the lookup, attempts, a winner's handshake. */
    private void stopAll(String why) {
        cancel(nextAttempt);
        cancel(deadline);
        if (lookup != null) {
            lookup.cancel(why);
        }
        for (LoopFuture<Connection> a : attempts) {
            if (a != null) {
                a.cancel(why);
            }
        }
        if (winner != null && !result.isSuccess()) {
            winner.close();
        }
    }

    private static UnknownHostException unknown(String message, Throwable cause) {
        UnknownHostException e = new UnknownHostException(message);
        e.initCause(cause);
        return e;
    }

    private static void cancel(TimerHandle t) {
        if (t != null) {
            t.cancel();
        }
    }
}
