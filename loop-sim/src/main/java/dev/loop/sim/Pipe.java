package dev.loop.sim;

import java.nio.ByteBuffer;

/**
 * One direction of a simulated TCP connection: the writer's send buffer, the wire and the reader's
 * receive buffer in one bounded ring. Bytes are counted from the start of the connection: what was
 * written, what has arrived (the reader may read it) and what was read; a segment's arrival moves
 * "arrived" up to the end of that segment, so a late segment (held up by a partition) can never
 * reorder the stream. The ring grows as bytes are written, never past the window, so an idle
 * connection holds little memory. Guarded by the network's lock.
 */
final class Pipe {
    /** Room for bytes not yet read: the reader's receive buffer plus the writer's send buffer. */
    final int capacity;
    private byte[] ring = new byte[0];
    private int head;
    private long written;
    private long arrived;
    private long read;
    /** The stream ends after this many bytes (the writer shut its output), or -1. */
    long finAt = -1;
    boolean finArrived;
    /** The writer reset the connection, and the reset arrived after every byte before it. */
    boolean resetArrived;
    /** The reset was sent (the writer aborted), whether or not it arrived. */
    boolean resetSent;
    /** When the last segment was due to arrive: later segments never arrive earlier. */
    long lastArrival;
    SimSocket writer;
    SimSocket reader;

    Pipe(int capacity) {
        this.capacity = capacity;
    }

    int room() {
        return (int) (capacity - (written - read));
    }

    long written() {
        return written;
    }

    /** Bytes the reader can read now. */
    int available() {
        return (int) (arrived - read);
    }

    /** Unread bytes, arrived or still on their way. */
    long unread() {
        return written - read;
    }

    /** Takes as much of {@code src} as the window allows; returns how much. */
    int put(ByteBuffer src) {
        int n = Math.min(src.remaining(), room());
        if (n <= 0) {
            return 0;
        }
        int used = (int) (written - read);
        if (used + n > ring.length) {
            grow(used + n);
        }
        int tail = (head + used) % ring.length;
        int first = Math.min(n, ring.length - tail);
        src.get(ring, tail, first);
        if (first < n) {
            src.get(ring, 0, n - first);
        }
        written += n;
        return n;
    }

    /** Moves what has arrived into {@code dst}; returns how much. */
    int take(ByteBuffer dst) {
        int n = Math.min(dst.remaining(), available());
        if (n <= 0) {
            return 0;
        }
        int first = Math.min(n, ring.length - head);
        dst.put(ring, head, first);
        if (first < n) {
            dst.put(ring, 0, n - first);
        }
        head = (head + n) % ring.length;
        read += n;
        return n;
    }

    /** Every byte up to {@code end} has arrived. */
    void arrive(long end) {
        if (end > arrived) {
            arrived = Math.min(end, written);
        }
    }

    /** Drops what was not read (the reader is gone, or the connection was reset). */
    void discard() {
        read = written;
        arrived = written;
        head = 0;
        ring = new byte[0];
    }

    private void grow(int needed) {
        int size = Math.max(4096, ring.length);
        while (size < needed) {
            size *= 2;
        }
        size = Math.min(Math.max(size, needed), Math.max(capacity, needed));
        byte[] bigger = new byte[size];
        int used = (int) (written - read);
        int first = Math.min(used, ring.length - head); // the unread bytes, in at most two runs
        System.arraycopy(ring, head, bigger, 0, first);
        System.arraycopy(ring, 0, bigger, first, used - first);
        ring = bigger;
        head = 0;
    }

    /**
     * Joins a connecting socket {@code s} and the end {@code a} its listener accepted: one pipe each
     * way, each holding what the receiver's buffer and the sender's hold together (the window).
     * Returns the pipe from {@code a} to {@code s}.
     */
    static Pipe join(SimSocket s, SimSocket a) {
        Pipe up = new Pipe(a.rcvbuf + s.sndbuf);
        Pipe down = new Pipe(s.rcvbuf + a.sndbuf);
        up.writer = s;
        up.reader = a;
        down.writer = a;
        down.reader = s;
        s.out = up;
        s.in = down;
        a.out = down;
        a.in = up;
        return down;
    }
}
