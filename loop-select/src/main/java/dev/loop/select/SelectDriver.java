package dev.loop.select;

import dev.loop.spi.IoCounters;
import dev.loop.spi.IoDriver;
import dev.loop.spi.NetIo;
import dev.loop.spi.Readiness;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The I/O side of a loop on one JDK {@link Selector}. Not thread-safe, except {@link #wakeup()}.
 *
 * <p>Readiness is dispatched through {@link Selector#select(Consumer, long)}, which hands each
 * selected key to one consumer without building the selected-key set, so a poll allocates nothing
 * per event. Each key's attachment is the {@link Selected} handle it belongs to, which translates
 * the key's ready set; the receiver gets it through {@link Readiness#deliver}, as on every backend.
 *
 * <p>Sockets ({@link #net()}) are {@code SocketChannel}s and {@code ServerSocketChannel}s in
 * non-blocking mode on this selector: see {@link SelectNetIo}.
 */
final class SelectDriver implements IoDriver {
    private static final long RESOLUTION_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** Index of the one count kept: selects made (each one {@code epoll_wait} or {@code poll} in the JDK). */
    private static final int SELECTS = 0;

    private final Selector selector;
    private final Consumer<SelectionKey> dispatch = this::dispatch;
    private Readiness.Failures failures = Readiness.LOGGED;
    private SelectNetIo net;
    private final IoCounters counters = new IoCounters("select");

    SelectDriver() throws IOException {
        this.selector = Selector.open();
    }

    @Override
    public int poll(long timeoutNanos) throws IOException {
        if (timeoutNanos == 0) {
            if (selector.keys().isEmpty()) {
                // No channel is registered, so selectNow() could report nothing. The one thing it
                // would change is to consume a pending wakeup(): left pending, that wakeup makes the
                // next blocking select return at once, a spurious wake-up the engine already
                // tolerates. Closed channels keep their key in keys() until a select deregisters
                // it (and the JDK releases their fd then), so this never delays that.
                return 0;
            }
            counters.increment(SELECTS);
            return selector.selectNow(dispatch);
        }
        counters.increment(SELECTS);
        if (timeoutNanos < 0) {
            return selector.select(dispatch);
        }
        // Round down: the engine parks for whatever remains below a millisecond.
        long millis = timeoutNanos / RESOLUTION_NANOS;
        return millis == 0 ? selector.selectNow(dispatch) : selector.select(dispatch, millis);
    }

    /** Called inside {@code Selector.select}: translate and hand over, nothing else. */
    private void dispatch(SelectionKey key) {
        if (key.attachment() instanceof Selected s) {
            Readiness.deliver(s.receiver(), s.readyBits(key), s, failures);
        }
    }

    @Override
    public IoCounters counters() {
        return counters;
    }

    @Override
    public void reportFailuresTo(Readiness.Failures failures) {
        this.failures = failures;
    }

    @Override
    public NetIo net() {
        if (net == null) {
            net = new SelectNetIo(selector);
        }
        return net;
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public long resolutionNanos() {
        return RESOLUTION_NANOS;
    }

    @Override
    public void close() {
        try {
            Set<SelectionKey> keys = selector.keys();
            for (SelectionKey k : keys.toArray(new SelectionKey[0])) {
                if (k.attachment() instanceof SelectWatch w) {
                    w.close(); // the program's channel: stop watching it, never close it
                    continue;
                }
                try {
                    k.channel().close();
                } catch (IOException e) {
                    // closing what the loop still owns; one failure must not keep the rest open
                }
            }
            selector.close();
        } catch (IOException e) {
            throw new UncheckedIOException("closing the selector failed", e);
        }
    }
}
