package dev.loop.net.dgram;

import dev.loop.LoopFuture;
import dev.loop.Promise;
import dev.loop.net.Datagram;
import dev.loop.net.DatagramHandler;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import dev.loop.net.transport.RepeatedFailure;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * The receiving half of a {@link UdpEndpoint}, not thread-safe (loop thread only): the pending pull
 * receive and push-style delivery to a {@link DatagramHandler}.
 *
 * <p>Invariant: at most one pull receive is pending (its promise, and where its bytes go), or a
 * handler is set, never both. The endpoint asks for read readiness only while one of them wants a
 * datagram. A pull receive is first tried at once, since a ready socket answers without a poll.
 *
 * <p>Every datagram is received into a buffer of {@link #MAX_DATAGRAM} bytes, more than any UDP
 * datagram can hold, so the kernel never cuts one silently (neither {@code recvfrom} as the JDK and
 * Netty expose it nor {@code DatagramChannel.receive} says that it did): push style into the loop's
 * shared buffer, which the handler gets as it is; pull style into a second shared buffer (a handler
 * holding the first may receive on another endpoint), copied into the caller's buffer, which is
 * where a datagram that does not fit is found and reported truncated. A caller's direct buffer with
 * that much room is received into directly.
 */
final class DatagramReceiver {
    /** Datagrams received per readiness event at most in push style: one busy socket cannot starve the rest. */
    static final int MAX_RECEIVES_PER_RUN = 32;
    /** A receive buffer this large holds any UDP datagram (65,527 bytes of payload at most, over IPv6). */
    static final int MAX_DATAGRAM = 64 * 1024;

    private final UdpEndpoint ep;

    private DatagramHandler handler;
    private boolean handlerTakesErrors; // the handler overrides onError: every error is the program's
    private RepeatedFailure untakenErrors; // otherwise a peer's errors are summarised, made on the first
    private boolean paused;

    private Promise<Datagram> pending; // the pull receive waiting for readiness
    private ByteBuffer dst;            // its buffer, or null for a new one of the datagram's size

    DatagramReceiver(UdpEndpoint ep) {
        this.ep = ep;
    }

    /** Whether the socket should report read readiness, the endpoint being open. */
    boolean wantsReceive() {
        return (pending != null && !pending.isDone()) || (handler != null && !paused);
    }

    /** The socket reported read readiness (or an error): receive what is wanted. */
    void receiveReady() {
        if (handler != null) {
            pushReceives();
        } else if (pending != null) {
            Promise<Datagram> p = pending;
            if (p.isDone() || tryReceive(p, dst)) { // done already: the caller cancelled it
                pending = null;
                dst = null;
            }
        }
    }

    private void pushReceives() {
        for (int i = 0; i < MAX_RECEIVES_PER_RUN && handler != null && !paused && ep.isOpen(); i++) {
            ByteBuffer s = ep.net.scratch(MAX_DATAGRAM);
            InetSocketAddress from;
            try {
                from = ep.socket.receive(s);
            } catch (IOException e) {
                if (!ep.socket.isOpen()) {
                    ep.closeNow(e);
                    return;
                }
                reportError("receiving", ep.nameReceiveError(e)); // the error was the kernel's to give once: go on
                continue;
            }
            if (from == null) {
                return;
            }
            ep.net.datagramIn();
            s.flip();
            DatagramHandler h = handler;
            try {
                h.onDatagram(ep, s, from);
            } catch (RuntimeException e) {
                ep.net.report("exception in onDatagram of " + h, e, h, ep);
            }
        }
    }

    /** A datagram's error: to the handler's onError when it has one, else summarised. */
    void reportError(String what, IOException e) {
        DatagramHandler h = handler;
        if (!handlerTakesErrors) {
            // A peer causes these (each ICMP port unreachable it sends to a connected endpoint is
            // one), as often as it likes: the default onError's report to the exception handler
            // would be a log record with a trace each, so they are summarised instead.
            if (untakenErrors == null) {
                untakenErrors = new RepeatedFailure(ep.net, h);
            }
            untakenErrors.failed(what + " on " + ep + " failed", e, ep);
            return;
        }
        try {
            h.onError(ep, e);
        } catch (RuntimeException thrown) {
            ep.net.report("exception in onError of " + h, thrown, h, ep);
        }
    }

    /** Whether {@code h} has an {@code onError} of its own rather than the interface's default. */
    private static boolean takesErrors(DatagramHandler h) {
        try {
            return h.getClass().getMethod("onError", DatagramEndpoint.class, IOException.class).getDeclaringClass()
                    != DatagramHandler.class;
        } catch (NoSuchMethodException | SecurityException cannotTell) {
            return true; // the program's handler, as before
        }
    }

    /**
     * Receives one datagram for {@code p} if one is waiting.
     *
     * @return true if {@code p} is now done (a datagram, or an error), false if none was waiting
     */
    private boolean tryReceive(Promise<Datagram> p, ByteBuffer into) {
        boolean direct = into != null && into.isDirect() && into.remaining() >= MAX_DATAGRAM;
        ByteBuffer buf = direct ? into : ep.net.datagramBuffer(MAX_DATAGRAM);
        InetSocketAddress from;
        try {
            from = ep.socket.receive(buf);
        } catch (IOException e) {
            if (!ep.socket.isOpen()) {
                ep.closeNow(e);
            }
            p.tryFail(ep.nameReceiveError(e));
            return true;
        }
        if (from == null) {
            return false;
        }
        ep.net.datagramIn();
        Datagram d;
        if (direct) {
            d = new Datagram(into, from, false);
        } else {
            buf.flip();
            int n = buf.remaining();
            if (into == null) {
                d = new Datagram(ByteBuffer.allocate(n).put(buf).flip(), from, false);
            } else {
                boolean cut = n > into.remaining();
                if (cut) {
                    buf.limit(into.remaining());
                }
                into.put(buf);
                d = new Datagram(into, from, cut);
            }
        }
        p.tryComplete(d);
        return true;
    }

    LoopFuture<Datagram> receive(ByteBuffer into) {
        if (handler != null) {
            throw new IllegalStateException("a handler receives on this endpoint; setHandler(null) first: " + ep);
        }
        if (pending != null) {
            if (!pending.isDone()) {
                throw new IllegalStateException("a receive is already pending on " + ep);
            }
            pending = null; // cancelled by its caller
            dst = null;
        }
        Promise<Datagram> p = ep.loop.newPromise();
        if (!ep.isOpen()) {
            p.fail(ep.closedCause());
            return p;
        }
        if (tryReceive(p, into)) {
            return p;
        }
        pending = p;
        dst = into;
        ep.updateInterest();
        return p;
    }

    void setHandler(DatagramHandler h) {
        if (h != null && pending != null && !pending.isDone()) {
            throw new IllegalStateException("a receive is pending on " + ep + ": cannot set a handler");
        }
        handler = h;
        handlerTakesErrors = h != null && takesErrors(h);
        ep.updateInterest();
    }

    void pause() {
        paused = true;
        ep.updateInterest();
    }

    void resume() {
        paused = false;
        ep.updateInterest();
    }

    /** Fails the pending pull receive, if any, with {@code why}. */
    void failReceive(Throwable why) {
        Promise<Datagram> p = pending;
        pending = null;
        dst = null;
        if (p != null) {
            p.tryFail(why);
        }
    }

    /** The endpoint closed (its pending receive already failed): tells the handler, last. */
    void closed(Throwable error) {
        if (untakenErrors != null) {
            untakenErrors.close(); // what is still untold is told now rather than never
        }
        DatagramHandler h = handler;
        if (h != null) {
            try {
                h.onClosed(ep, error);
            } catch (RuntimeException e) {
                ep.net.report("exception in onClosed of " + h, e, h, ep);
            }
        }
    }
}
