package dev.loop.iouring;

import dev.loop.spi.IoReady;
import dev.loop.spi.IoWatch;

/**
 * A program's own file descriptor watched on io_uring (asyncio's {@code add_reader} and
 * {@code add_writer}), reported by poll operations ({@link IoUringPolled}). Not thread-safe: loop
 * thread only. Closing the watch cancels the poll and never closes the descriptor: it is the
 * program's.
 */
final class IoUringWatch extends IoUringPolled implements IoWatch {

    IoUringWatch(IoUringNetIo net, int fd, IoReady ready) {
        super(net, null, fd, ready);
    }

    @Override
    void closeDescriptor() {
        net.unwatched(fd); // the descriptor is the program's: it stays open
    }

    @Override
    public String toString() {
        return "IoUringWatch[fd " + fd + "]";
    }
}
