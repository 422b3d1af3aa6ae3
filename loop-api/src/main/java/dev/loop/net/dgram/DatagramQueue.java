package dev.loop.net.dgram;

import dev.loop.Loop;
import dev.loop.Promise;
import dev.loop.net.Datagrams;
import dev.loop.net.transport.WatermarkedQueue;
import dev.loop.spi.IoDatagram;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;

/**
 * An endpoint's datagrams that the kernel did not take yet, each with its target and its future,
 * and their watermarks ({@link WatermarkedQueue}). Not thread-safe: loop thread only.
 *
 * <p>Datagrams leave in order, each whole: the head is retried until the kernel takes it. A
 * datagram the kernel refuses (too large, not allowed, refused by a connected peer) fails alone and
 * the next one is tried, as a send at once would have failed alone.
 */
final class DatagramQueue extends WatermarkedQueue {
    /** How a datagram's failure is named: its size and target. */
    interface Namer {
        IOException name(IOException e, int size, InetSocketAddress target);
    }

    private static final class Entry {
        final ByteBuffer data;
        final InetSocketAddress target;
        final Promise<Void> promise;
        final int size;

        Entry(ByteBuffer data, InetSocketAddress target, Promise<Void> promise) {
            this.data = data;
            this.target = target;
            this.promise = promise;
            this.size = data.remaining();
        }
    }

    private final ArrayDeque<Entry> out = new ArrayDeque<>();

    DatagramQueue(Loop loop, int lowWatermark, int highWatermark) {
        super(loop, lowWatermark, highWatermark);
    }

    boolean isEmpty() {
        return out.isEmpty();
    }

    /** Copies {@code src}'s remaining bytes to the tail; the future completes once they are sent. */
    Promise<Void> add(ByteBuffer src, InetSocketAddress target) {
        ByteBuffer copy = ByteBuffer.allocate(src.remaining()).put(src).flip();
        Promise<Void> p = loop.newPromise();
        out.addLast(new Entry(copy, target, p));
        added(copy.remaining());
        return p;
    }

    /**
     * Sends from the head until the queue is empty or the kernel has no room.
     *
     * @return how many datagrams the kernel took (those it refused are not counted)
     * @throws ClosedChannelException if the socket was closed under the queue: the endpoint is done
     */
    int flushTo(IoDatagram socket, Namer namer) throws ClosedChannelException {
        int sent = 0;
        while (!out.isEmpty()) {
            Entry e = out.peekFirst();
            IOException refused = null;
            try {
                if (!socket.send(e.data, e.target)) {
                    break;
                }
            } catch (ClosedChannelException closed) {
                throw closed;
            } catch (IOException ex) {
                refused = namer.name(ex, e.size, e.target);
            }
            out.pollFirst();
            removed(e.size);
            if (refused == null) {
                sent++;
                e.promise.tryComplete(null);
            } else {
                e.promise.tryFail(refused);
            }
        }
        flushed();
        return sent;
    }

    /** Drops every datagram and fails every waiter with {@code why}. */
    void fail(Throwable why) {
        while (!out.isEmpty()) {
            out.pollFirst().promise.tryFail(why);
        }
        dropped(why);
    }
}
