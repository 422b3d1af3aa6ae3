package dev.loop.iouring;

import dev.loop.linux.NativeErrors;
import dev.loop.linux.NativeStreams;
import dev.loop.spi.IoReady;
import dev.loop.spi.SocketErrors.Call;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * The sending side of an {@link IoUringSocket}: its send buffer ({@link Outbound}) and the one
 * ring send per iteration that empties it, files sent with {@code sendfile(2)} and the poll for
 * room they arm when the socket is full, and the output shutdown that waits for taken bytes to
 * leave. The socket keeps what both sides share (its descriptor, interest, first failure) and
 * routes its submissions, completions and cancels here. Not thread-safe: loop thread only.
 */
final class Sending {
    private final IoUringSocket s;
    /** The send buffer and its send; null while nothing waits to leave. */
    private Outbound out;
    /**
     * A file could not be sent just now (taken bytes still in flight, or the socket full): write
     * readiness is reported by the send's completion or by {@link #writePollId}'s, not by the
     * level pass, which would otherwise ask again and again while nothing can change.
     */
    private boolean fileWaits;
    private boolean wantWritePoll;
    /** The poll for room ({@link Ops#WRITE_POLL}) in flight, or 0. */
    private long writePollId;
    private boolean writePollCancelled;
    private boolean shutdownPending;
    private boolean outputShut;

    Sending(IoUringSocket s) {
        this.s = s;
    }

    /** Whether a write would take bytes now and the level pass may say so. */
    boolean writable() {
        return room() > 0 && !fileWaits;
    }

    /** Bytes {@link #write} would take now. */
    private int room() {
        return out == null ? IoUringSocket.SEND_BUFFER : out.room();
    }

    int write(ByteBuffer src) throws IOException {
        checkWritable();
        int n = Math.min(src.remaining(), room());
        if (n > 0) {
            if (out == null) {
                out = s.net.buffers().takeSend(n);
            } else if (out.end + n > out.capacity) {
                growSendBuffer(out.end + n); // room() allows it only while no send is in flight
            }
            Outbound o = out;
            int limit = src.limit();
            src.limit(src.position() + n);
            o.buffer.limit(o.capacity).position(o.end);
            o.buffer.put(src);
            src.limit(limit);
            o.end += n;
            if (o.id == 0) {
                s.requestSubmit();
            }
        }
        return n;
    }

    /**
     * Moves what is taken into a buffer that holds {@code bytes}: a socket that sends small
     * messages keeps a small buffer, one that writes more is given a larger one as it does.
     */
    private void growSendBuffer(int bytes) {
        Outbound old = out;
        Outbound grown = s.net.buffers().takeSend(bytes);
        old.buffer.limit(old.end).position(0);
        grown.buffer.clear();
        grown.buffer.put(old.buffer);
        grown.end = old.end;
        out = grown;
        s.net.buffers().giveBackSend(old);
    }

    long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long total = 0;
        for (int i = offset; i < offset + length; i++) {
            ByteBuffer b = srcs[i];
            if (!b.hasRemaining()) {
                continue;
            }
            int n = write(b);
            total += n;
            if (b.hasRemaining()) {
                break;
            }
        }
        return total;
    }

    private void checkWritable() throws IOException {
        IOException failure = s.failure();
        if (failure != null) {
            throw failure;
        }
        if (s.isClosing()) {
            throw new ClosedChannelException();
        }
        if (outputShut || shutdownPending) {
            throw new IOException("output of " + s + " is shut down");
        }
    }

    /** Submits the poll for room a full socket asked for, if none is in flight. */
    void submitWritePoll() {
        if (wantWritePoll && writePollId == 0) {
            wantWritePoll = false;
            writePollId = s.submit(Ops.poll(s.fd, Ops.POLLOUT, s.data(Ops.WRITE_POLL)));
        }
    }

    /** Everything taken since the last send leaves in one send, once the last one completed. */
    void flush() {
        Outbound o = out;
        if (o == null || o.id != 0 || o.end == 0 || s.failure() != null) {
            return;
        }
        o.sending = o.end;
        o.id = s.submit(o.sendOps(s.fd, s.data(Ops.SEND)));
    }

    void sent(int res) {
        Outbound o = out;
        o.id = 0;
        o.cancelled = false;
        if (res < 0) {
            if (res != -Ops.ECANCELED) {
                s.fail(res);
                s.report(IoReady.ERROR | (s.readInterest ? IoReady.READ : 0) | (s.writeInterest ? IoReady.WRITE : 0));
            }
            giveBackSendBuffer();
            return;
        }
        // Keep what the kernel did not take (a short send) and what was written meanwhile.
        int left = Math.max(0, o.end - res);
        if (left > 0) {
            o.buffer.limit(o.end).position(res);
            o.buffer.compact();
        }
        o.end = left;
        o.sending = 0;
        fileWaits = false;
        if (left > 0) {
            s.requestSubmit();
        } else {
            giveBackSendBuffer();
            if (shutdownPending) {
                shutdownNow();
            }
            if (s.isClosing()) {
                return; // the close waited for this send; the channel releases itself now
            }
        }
        if (s.writeInterest && !s.isClosing()) {
            s.report(IoReady.WRITE);
        }
    }

    /** The poll for room completed: the socket has room, or an error the next call meets. */
    void writePolled(int res) {
        writePollId = 0;
        writePollCancelled = false;
        fileWaits = false;
        if (res != -Ops.ECANCELED && !s.isClosing() && s.writeInterest) {
            s.report(IoReady.WRITE); // room, or an error the next call meets
        }
    }

    void giveBackSendBuffer() {
        if (out != null) {
            s.net.buffers().giveBackSend(out);
            out = null;
        }
    }

    /**
     * Sends from the file only once every byte taken before has left (a send in flight would
     * otherwise be overtaken); a full socket arms a poll for room.
     */
    long sendFile(int fileFd, FileChannel file, long position, long count) throws IOException {
        checkWritable();
        if (out != null && (out.id != 0 || !sendTakenNow()) || writePollId != 0 || wantWritePoll) {
            fileWaits = true;
            return 0;
        }
        if (!file.isOpen()) {
            throw new ClosedChannelException(); // its descriptor may already be another file's
        }
        long n = SendFile.send(s.fd, fileFd, position, count);
        if (n == count) {
            return n;
        }
        if (n > 0 || n == -Ops.EAGAIN || n == -Ops.EINTR) {
            // Short or refused: the socket is full. Nothing of ours is in flight to complete and
            // say when it has room again, so a poll does (the level pass only repeats reports).
            fileWaits = true;
            wantWritePoll = true;
            s.requestSubmit();
            return Math.max(n, 0);
        }
        if (n == 0) {
            return -1; // nothing at position: the file ends there
        }
        s.fail((int) n);
        throw s.failure();
    }

    /**
     * Sends the bytes taken but not yet submitted (a response head written just before the file)
     * with one {@code send(2)} now, rather than a ring send whose completion the file would wait
     * a loop turn for. Returns whether none is left; what the socket did not take goes by the ring.
     */
    private boolean sendTakenNow() throws IOException {
        Outbound o = out;
        int n;
        try {
            n = s.socket.sendAddress(o.address, 0, o.end);
        } catch (IOException e) {
            s.failWith(NativeErrors.translate(Call.IO, e, null));
            throw s.failure();
        }
        if (n >= o.end) {
            giveBackSendBuffer();
            return true;
        }
        if (n > 0) {
            o.buffer.limit(o.end).position(n);
            o.buffer.compact();
            o.end -= n;
        }
        s.requestSubmit();
        return false;
    }

    void shutdownOutput() throws IOException {
        checkWritable();
        if (out == null || out.end == 0 && out.id == 0) {
            shutdownNow();
        } else {
            shutdownPending = true;
        }
    }

    private void shutdownNow() {
        shutdownPending = false;
        outputShut = true;
        try {
            NativeStreams.shutdownOutput(s.socket);
        } catch (IOException e) {
            s.failWith(e);
        }
    }

    /** Cancels the poll for room in flight, if any. */
    void cancelWritePoll() {
        if (writePollId != 0 && !writePollCancelled) {
            writePollCancelled = true;
            s.submit(Ops.cancel(writePollId, s.data(Ops.CANCEL)));
        }
    }

    /** Cancels the send in flight, if any: its bytes are dropped (abort, or the loop shutting down). */
    void cancelSend() {
        if (out != null && out.id != 0 && !out.cancelled) {
            out.cancelled = true;
            s.submit(Ops.cancel(out.id, s.data(Ops.CANCEL)));
        }
    }

    /** Drops the bytes taken and not yet sent (abort). */
    void dropTaken() {
        if (out != null) {
            out.end = 0;
        }
    }
}
