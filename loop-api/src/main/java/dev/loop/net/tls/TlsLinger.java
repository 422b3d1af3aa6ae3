package dev.loop.net.tls;

import dev.loop.TimerHandle;
import dev.loop.net.transport.CoalescedReadiness;
import dev.loop.net.transport.NetRegistry;
import dev.loop.spi.IoTransport;
import java.io.IOException;
import java.time.Duration;

/**
 * The end of a TLS connection closed gracefully while the socket could not take its last records
 * and close_notify at once, not thread-safe (loop thread only): it sends them as the socket drains,
 * then closes it. The connection is closed for its user already; the loop's registry owns the socket
 * meanwhile, so closing the loop closes it, and it gives up after {@link #MAX}.
 */
final class TlsLinger extends CoalescedReadiness implements NetRegistry.Owned {
    /** How long the last records may take to leave before the socket is closed anyway. */
    static final Duration MAX = Duration.ofSeconds(10);

    private final NetRegistry net;
    private final TlsRecords rec;
    private final IoTransport socket;
    private final TimerHandle timer;
    private boolean done;

    private TlsLinger(NetRegistry net, TlsRecords rec, IoTransport socket) {
        super(net.loop);
        this.net = net;
        this.rec = rec;
        this.socket = socket;
        this.timer = loop.callLater(MAX, this::end);
    }

    /** Takes over {@code socket}, whose readiness now comes here, until {@code rec}'s backlog is sent. */
    static void start(NetRegistry net, TlsRecords rec, IoTransport socket) {
        TlsLinger l = new TlsLinger(net, rec, socket);
        net.add(l);
        socket.attach(l);
        socket.interest(false, true);
    }

    @Override
    protected void ready(int ops) {
        try {
            if (rec.flush()) {
                rec.wrapPending(); // close_notify, if there was no room for it behind the backlog
                if (rec.flush()) {
                    end();
                }
            }
        } catch (IOException | RuntimeException e) {
            end(); // the peer went away: nothing more to send
        }
    }

    private void end() {
        if (done) {
            return;
        }
        done = true;
        net.remove(this);
        timer.cancel();
        rec.release();
        socket.close();
    }

    @Override
    public void loopClosing(IOException why) {
        end();
    }

    @Override
    public String toString() {
        return "TlsLinger[" + socket + "]";
    }
}
