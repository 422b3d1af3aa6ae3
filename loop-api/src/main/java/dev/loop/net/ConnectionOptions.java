package dev.loop.net;

import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Options of one TCP connection: what the kernel is told, how much the connection buffers, and its
 * timeouts. Immutable; each {@code with...} returns a copy.
 *
 * @param tcpNoDelay        disable Nagle's algorithm (default true: an event loop writes whole
 *                          messages, and delaying them only adds latency)
 * @param keepAlive         SO_KEEPALIVE
 * @param sendBufferSize    SO_SNDBUF in bytes, 0 for the system default
 * @param receiveBufferSize SO_RCVBUF in bytes, 0 for the system default
 * @param readBufferSize    bytes read from the socket per call; also the initial size of the
 *                          connection's input buffer
 * @param highWatermark     once more than this many bytes wait in the outgoing queue the
 *                          connection is not {@linkplain Connection#isWritable() writable}
 * @param lowWatermark      it becomes writable again, and {@link Connection#drain()} completes,
 *                          once the queue is back to this many bytes or fewer
 * @param connectTimeout    a connect not done by then fails with
 *                          {@link java.net.SocketTimeoutException}; {@link Duration#ZERO}: none
 * @param idleTimeout       a connection with neither a byte read nor a byte written for this long
 *                          is aborted; {@link Duration#ZERO}: none
 * @param readTimeout       a pending read with no data for this long fails with
 *                          {@link java.net.SocketTimeoutException} (the connection stays open);
 *                          {@link Duration#ZERO}: none
 * @param resolver          connecting by host name ({@link Net#connect(dev.loop.Loop, String, int,
 *                          ConnectionOptions)}): what turns the name into addresses; by default
 *                          {@link Resolver#system()}. Unused by connections made from an address or
 *                          accepted by a server.
 * @param attemptDelay      connecting by host name: how long one attempt runs alone before the next
 *                          address is tried beside it (Happy Eyeballs, RFC 8305; 250 ms by
 *                          default, as the RFC recommends); {@link Duration#ZERO}: no racing, each
 *                          address is tried once the previous one failed
 */
public record ConnectionOptions(boolean tcpNoDelay, boolean keepAlive, int sendBufferSize, int receiveBufferSize,
                            int readBufferSize, int highWatermark, int lowWatermark, Duration connectTimeout,
                            Duration idleTimeout, Duration readTimeout, Resolver resolver, Duration attemptDelay) {

    public static final int DEFAULT_READ_BUFFER_SIZE = 64 * 1024;
    public static final int DEFAULT_HIGH_WATERMARK = 64 * 1024;
    public static final int DEFAULT_LOW_WATERMARK = 16 * 1024;
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(30);
    /** RFC 8305's recommended "Connection Attempt Delay". */
    public static final Duration DEFAULT_ATTEMPT_DELAY = Duration.ofMillis(250);

    public ConnectionOptions {
        Objects.requireNonNull(connectTimeout, "connectTimeout");
        Objects.requireNonNull(idleTimeout, "idleTimeout");
        Objects.requireNonNull(readTimeout, "readTimeout");
        Objects.requireNonNull(resolver, "resolver");
        Objects.requireNonNull(attemptDelay, "attemptDelay");
        if (sendBufferSize < 0 || receiveBufferSize < 0) {
            throw new IllegalArgumentException("buffer sizes must not be negative: send " + sendBufferSize
                    + ", receive " + receiveBufferSize);
        }
        if (readBufferSize < 1) {
            throw new IllegalArgumentException("readBufferSize must be at least 1: " + readBufferSize);
        }
        if (lowWatermark < 0 || highWatermark < lowWatermark) {
            throw new IllegalArgumentException("need 0 <= lowWatermark <= highWatermark: low " + lowWatermark
                    + ", high " + highWatermark);
        }
        if (connectTimeout.isNegative() || idleTimeout.isNegative() || readTimeout.isNegative()
                || attemptDelay.isNegative()) {
            throw new IllegalArgumentException("timeouts must not be negative");
        }
    }

    /**
     * TCP_NODELAY on, system buffer sizes, 64 KiB reads, watermarks 64/16 KiB, 30 s to connect; by
     * host name, the system's resolver and 250 ms between attempts.
     */
    public static ConnectionOptions defaults() {
        return new ConnectionOptions(true, false, 0, 0, DEFAULT_READ_BUFFER_SIZE, DEFAULT_HIGH_WATERMARK,
                DEFAULT_LOW_WATERMARK, DEFAULT_CONNECT_TIMEOUT, Duration.ZERO, Duration.ZERO, Resolver.system(),
                DEFAULT_ATTEMPT_DELAY);
    }

    public ConnectionOptions withTcpNoDelay(boolean on) {
        return new ConnectionOptions(on, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize, highWatermark,
                lowWatermark, connectTimeout, idleTimeout, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withKeepAlive(boolean on) {
        return new ConnectionOptions(tcpNoDelay, on, sendBufferSize, receiveBufferSize, readBufferSize, highWatermark,
                lowWatermark, connectTimeout, idleTimeout, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withBufferSizes(int send, int receive) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, send, receive, readBufferSize, highWatermark,
                lowWatermark, connectTimeout, idleTimeout, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withReadBufferSize(int bytes) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, bytes, highWatermark,
                lowWatermark, connectTimeout, idleTimeout, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withWatermarks(int low, int high) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize, high,
                low, connectTimeout, idleTimeout, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withConnectTimeout(Duration d) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize,
                highWatermark, lowWatermark, d, idleTimeout, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withIdleTimeout(Duration d) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize,
                highWatermark, lowWatermark, connectTimeout, d, readTimeout, resolver, attemptDelay);
    }

    public ConnectionOptions withReadTimeout(Duration d) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize,
                highWatermark, lowWatermark, connectTimeout, idleTimeout, d, resolver, attemptDelay);
    }

    /** Connecting by host name: looks names up with {@code r} (a cache: {@link Resolver#cached}). */
    public ConnectionOptions withResolver(Resolver r) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize,
                highWatermark, lowWatermark, connectTimeout, idleTimeout, readTimeout, r, attemptDelay);
    }

    /** Connecting by host name: the Happy Eyeballs delay between attempts; {@link Duration#ZERO}: one at a time. */
    public ConnectionOptions withAttemptDelay(Duration d) {
        return new ConnectionOptions(tcpNoDelay, keepAlive, sendBufferSize, receiveBufferSize, readBufferSize,
                highWatermark, lowWatermark, connectTimeout, idleTimeout, readTimeout, resolver, d);
    }

    /** The kernel options, as the backend SPI takes them. */
    public Map<SocketOption<?>, Object> kernelOptions() {
        Map<SocketOption<?>, Object> m = new LinkedHashMap<>();
        m.put(StandardSocketOptions.TCP_NODELAY, tcpNoDelay);
        if (keepAlive) {
            m.put(StandardSocketOptions.SO_KEEPALIVE, true);
        }
        if (sendBufferSize > 0) {
            m.put(StandardSocketOptions.SO_SNDBUF, sendBufferSize);
        }
        if (receiveBufferSize > 0) {
            m.put(StandardSocketOptions.SO_RCVBUF, receiveBufferSize);
        }
        return m;
    }
}
