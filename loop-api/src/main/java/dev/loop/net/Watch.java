package dev.loop.net;

import dev.loop.Loop;
import dev.loop.net.transport.ChannelWatch;
import java.io.IOException;
import java.nio.channels.SelectableChannel;
import java.util.Objects;

/**
 * A channel or file descriptor the program opened itself, watched by a loop for readiness
 * (asyncio's {@code add_reader}/{@code add_writer}). Not thread-safe: loop thread only.
 *
 * <pre>{@code
 * Watch w = Watch.channel(loop, pipe.source());        // backend select: JDK channels
 * w.onReadable(() -> pipe.source().read(buffer));      // level-triggered: called while readable
 * ...
 * w.close();                                           // stops watching; the channel stays open
 * }</pre>
 *
 * <p>Callbacks run on the loop thread in its callback phase, once per iteration while the channel
 * stays ready and the callback is set (so a reader that does not drain the channel is called
 * again), also when the channel has an error or was hung up on: the next read or write says which.
 * An exception from a callback goes to the loop's exception handler. What a backend can watch
 * depends on its poller: {@code select} takes {@link SelectableChannel}s (non-blocking ones) and no
 * raw descriptors, {@code epoll} takes descriptors and no JDK channels (the JDK does not give out a
 * channel's descriptor); the other kind throws an {@link UnsupportedOperationException} naming the
 * backend. When the loop closes, its watches stop; the channels stay open.
 */
public interface Watch extends AutoCloseable {

    /**
     * Watches {@code channel}, which must be non-blocking; nothing is called until
     * {@link #onReadable} or {@link #onWritable} sets a callback.
     *
     * @throws IllegalArgumentException      if the channel is closed, blocking, or already watched
     *                                       by this loop
     * @throws UnsupportedOperationException naming the backend where it cannot watch JDK channels
     */
    static Watch channel(Loop loop, SelectableChannel channel) throws IOException {
        Objects.requireNonNull(channel, "channel");
        return ChannelWatch.open(loop, channel, -1);
    }

    /**
     * Watches the file descriptor {@code fd}, which stays the caller's: never closed here, and to
     * be watched no longer ({@link #close()}) before the caller closes it.
     *
     * @throws IOException                   naming the descriptor when the poller refuses it
     *                                       (closed, a regular file, already watched by this loop)
     * @throws UnsupportedOperationException naming the backend where it cannot watch descriptors
     */
    static Watch fd(Loop loop, int fd) throws IOException {
        if (fd < 0) {
            throw new IllegalArgumentException("not a file descriptor: " + fd);
        }
        return ChannelWatch.open(loop, null, fd);
    }

    /** The loop this watch belongs to. */
    Loop loop();

    /**
     * Calls {@code callback} while the channel is readable (or has an error, or was hung up on);
     * {@code null} stops (asyncio's {@code remove_reader}). Replaces the callback set before.
     *
     * @throws IllegalArgumentException if the channel cannot be read at all (a pipe's sink)
     * @throws IllegalStateException    if the watch is closed
     */
    void onReadable(Runnable callback);

    /**
     * Calls {@code callback} while the channel is writable (or has an error); {@code null} stops.
     *
     * @throws IllegalArgumentException if the channel cannot be written at all (a pipe's source)
     * @throws IllegalStateException    if the watch is closed
     */
    void onWritable(Runnable callback);

    /** Stops watching; the channel or descriptor stays open. Idempotent. */
    @Override
    void close();

    /** False once closed, by {@link #close()} or by the loop closing. */
    boolean isOpen();
}
