package dev.loop.spi;

import java.io.IOException;
import java.nio.channels.SelectableChannel;

/**
 * Watching channels and descriptors a program opened itself (asyncio's {@code add_reader} and
 * {@code add_writer}), offered through {@link NetIo#watches()}. Not thread-safe: loop thread
 * only, or any thread while the loop is not running.
 *
 * <p>A backend watches what its poller can register: the JDK {@code Selector} takes
 * {@link SelectableChannel}s and no raw descriptors, epoll takes descriptors and cannot get one
 * out of a JDK channel. The kind it cannot take throws {@link UnsupportedOperationException} with
 * a message that says why; {@code loop-api} adds the backend's name.
 */
public interface WatchIo {

    /**
     * Starts watching {@code channel}, which must be open and non-blocking; nothing is reported
     * until {@link IoWatch#interest} asks for it.
     *
     * @throws IllegalArgumentException if the channel is closed, blocking, or already watched here
     * @throws UnsupportedOperationException if this backend cannot watch JDK channels
     */
    default IoWatch watch(SelectableChannel channel, IoReady ready) throws IOException {
        throw new UnsupportedOperationException("cannot watch a JDK SelectableChannel");
    }

    /**
     * Starts watching the file descriptor {@code fd}, which stays the caller's (never closed here).
     *
     * @throws IOException naming the descriptor when the poller refuses it (closed, a regular file,
     *                     or already watched by this loop)
     * @throws UnsupportedOperationException if this backend cannot watch raw descriptors
     */
    default IoWatch watch(int fd, IoReady ready) throws IOException {
        throw new UnsupportedOperationException("cannot watch a raw file descriptor");
    }
}
