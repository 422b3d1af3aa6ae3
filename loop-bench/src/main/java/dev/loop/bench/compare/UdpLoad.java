package dev.loop.bench.compare;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * UDP echo load: {@code peers} client threads of this process, each a blocking JDK socket
 * connected to the server and keeping {@code window} datagrams of {@code size} bytes in flight
 * (a window lost to a full buffer is sent again after {@link #LOST_MILLIS}). The same load for
 * every server, started afresh per window; not pinned to a CPU (threads of this JVM), so on two
 * cores the server shares its CPU with nothing but the clients share theirs with the comparison.
 */
final class UdpLoad implements ServerLoad.Load {
    static final int LOST_MILLIS = 200;
    private final int peers;
    private final int window;
    private final int size;

    UdpLoad(int peers, int window, int size) {
        this.peers = peers;
        this.window = window;
        this.size = size;
    }

    @Override
    public ServerLoad.Window run(ServerLoad.Endpoint server, Duration settle, Duration length, boolean burst,
                                 ServerLoad.Meter meter) throws IOException {
        InetSocketAddress target = new InetSocketAddress(InetAddress.getByName(server.host()), server.port());
        Run run = new Run(target);
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (burst) {
            meter.begin();
        }
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < peers; p++) {
            threads.add(Thread.ofPlatform().daemon().name("udp-peer-" + p).start(run::peer));
        }
        try {
            if (!burst) {
                sleep(settle);
                meter.begin();
            }
            long cpu0 = cpu(mx, threads);
            long n0 = run.echoed.sum();
            long t0 = System.nanoTime();
            sleep(length);
            long n1 = run.echoed.sum();
            double seconds = (System.nanoTime() - t0) / 1e9;
            long cpu1 = cpu(mx, threads);
            run.sending = false;
            if (burst) {
                // nothing in flight at the end: wait for what is still out, or its loss
                run.awaitQuiet();
                n1 = run.echoed.sum();
            }
            meter.end();
            if (run.failure.get() != null) {
                throw new IOException("udp peer failed: " + run.failure.get());
            }
            return new ServerLoad.Window(n1 - n0, (n1 - n0) * size, seconds, (cpu1 - cpu0) / 1e9, Double.NaN,
                    Double.NaN);
        } finally {
            run.stopped = true;
            for (Thread t : threads) {
                try {
                    t.join(2 * LOST_MILLIS + 1000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static long cpu(ThreadMXBean mx, List<Thread> threads) {
        long sum = 0;
        for (Thread t : threads) {
            long c = mx.getThreadCpuTime(t.threadId());
            sum += Math.max(0, c);
        }
        return sum;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** One window's peers and counts. */
    private final class Run {
        final InetSocketAddress target;
        final LongAdder echoed = new LongAdder();
        final AtomicLong outstanding = new AtomicLong();
        final java.util.concurrent.atomic.AtomicReference<String> failure = new java.util.concurrent.atomic.AtomicReference<>();
        volatile boolean sending = true;
        volatile boolean stopped;

        Run(InetSocketAddress target) {
            this.target = target;
        }

        void peer() {
            try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
                s.connect(target);
                s.setSoTimeout(LOST_MILLIS);
                byte[] out = new byte[size];
                DatagramPacket send = new DatagramPacket(out, out.length);
                DatagramPacket in = new DatagramPacket(new byte[2048], 2048);
                int inFlight = 0;
                for (int i = 0; i < window; i++) {
                    s.send(send);
                    inFlight++;
                }
                outstanding.addAndGet(inFlight);
                while (!stopped && (sending || inFlight > 0)) {
                    try {
                        s.receive(in);
                        echoed.increment();
                        if (sending) {
                            s.send(send);
                        } else {
                            inFlight--;
                            outstanding.decrementAndGet();
                        }
                    } catch (SocketTimeoutException lost) {
                        if (!sending) {
                            outstanding.addAndGet(-inFlight); // what is still out is lost: stop waiting
                            inFlight = 0;
                        } else {
                            for (int i = 0; i < window; i++) {
                                s.send(send);
                            }
                        }
                    }
                }
            } catch (IOException e) {
                if (!stopped) {
                    failure.compareAndSet(null, e.toString());
                }
            }
        }

        /** Waits until every peer has its answers or gave them up as lost. */
        void awaitQuiet() {
            long deadline = System.nanoTime() + Duration.ofMillis(3L * LOST_MILLIS).toNanos();
            while (outstanding.get() > 0 && System.nanoTime() < deadline) {
                Thread.onSpinWait();
                sleep(Duration.ofMillis(1));
            }
        }
    }
}
