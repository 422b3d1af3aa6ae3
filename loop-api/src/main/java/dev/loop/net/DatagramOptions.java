package dev.loop.net;

import java.net.NetworkInterface;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Options of a UDP endpoint: what the kernel is told, and how much the endpoint queues. Immutable;
 * each {@code with...} returns a copy. Other kernel options can be set on the open endpoint with
 * {@link DatagramEndpoint#setOption}.
 *
 * @param reuseAddress       SO_REUSEADDR: bind a port others are bound to (multicast receivers)
 * @param reusePort          SO_REUSEPORT: several sockets share the port and its datagrams
 * @param broadcast          SO_BROADCAST: allow sending to a broadcast address (without it, such a
 *                           send fails with a {@link java.net.SocketException})
 * @param sendBufferSize     SO_SNDBUF in bytes, 0 for the system default
 * @param receiveBufferSize  SO_RCVBUF in bytes, 0 for the system default
 * @param highWatermark      once more than this many bytes of datagrams wait for the kernel the
 *                           endpoint is not {@linkplain DatagramEndpoint#isWritable() writable}
 * @param lowWatermark       it becomes writable again, and {@link DatagramEndpoint#drain()}
 *                           completes, once at most this many bytes wait
 * @param multicastInterface IP_MULTICAST_IF: the interface multicast datagrams leave by, or null
 *                           for the system's choice
 */
public record DatagramOptions(boolean reuseAddress, boolean reusePort, boolean broadcast, int sendBufferSize,
                              int receiveBufferSize, int highWatermark, int lowWatermark,
                              NetworkInterface multicastInterface) {

    public static final int DEFAULT_HIGH_WATERMARK = 64 * 1024;
    public static final int DEFAULT_LOW_WATERMARK = 16 * 1024;

    public DatagramOptions {
        if (sendBufferSize < 0 || receiveBufferSize < 0) {
            throw new IllegalArgumentException("buffer sizes must not be negative: send " + sendBufferSize
                    + ", receive " + receiveBufferSize);
        }
        if (lowWatermark < 0 || highWatermark < lowWatermark) {
            throw new IllegalArgumentException("need 0 <= lowWatermark <= highWatermark: low " + lowWatermark
                    + ", high " + highWatermark);
        }
    }

    /** No address or port sharing, no broadcast, system buffer sizes, watermarks 64/16 KiB. */
    public static DatagramOptions defaults() {
        return new DatagramOptions(false, false, false, 0, 0, DEFAULT_HIGH_WATERMARK, DEFAULT_LOW_WATERMARK, null);
    }

    public DatagramOptions withReuseAddress(boolean on) {
        return new DatagramOptions(on, reusePort, broadcast, sendBufferSize, receiveBufferSize, highWatermark,
                lowWatermark, multicastInterface);
    }

    public DatagramOptions withReusePort(boolean on) {
        return new DatagramOptions(reuseAddress, on, broadcast, sendBufferSize, receiveBufferSize, highWatermark,
                lowWatermark, multicastInterface);
    }

    public DatagramOptions withBroadcast(boolean on) {
        return new DatagramOptions(reuseAddress, reusePort, on, sendBufferSize, receiveBufferSize, highWatermark,
                lowWatermark, multicastInterface);
    }

    public DatagramOptions withBufferSizes(int send, int receive) {
        return new DatagramOptions(reuseAddress, reusePort, broadcast, send, receive, highWatermark, lowWatermark,
                multicastInterface);
    }

    public DatagramOptions withWatermarks(int low, int high) {
        return new DatagramOptions(reuseAddress, reusePort, broadcast, sendBufferSize, receiveBufferSize, high, low,
                multicastInterface);
    }

    public DatagramOptions withMulticastInterface(NetworkInterface nif) {
        return new DatagramOptions(reuseAddress, reusePort, broadcast, sendBufferSize, receiveBufferSize, highWatermark,
                lowWatermark, nif);
    }

    /** The kernel options, as the backend SPI takes them. */
    public Map<SocketOption<?>, Object> kernelOptions() {
        Map<SocketOption<?>, Object> m = new LinkedHashMap<>();
        if (reuseAddress) {
            m.put(StandardSocketOptions.SO_REUSEADDR, true);
        }
        if (reusePort) {
            m.put(StandardSocketOptions.SO_REUSEPORT, true);
        }
        if (broadcast) {
            m.put(StandardSocketOptions.SO_BROADCAST, true);
        }
        if (sendBufferSize > 0) {
            m.put(StandardSocketOptions.SO_SNDBUF, sendBufferSize);
        }
        if (receiveBufferSize > 0) {
            m.put(StandardSocketOptions.SO_RCVBUF, receiveBufferSize);
        }
        if (multicastInterface != null) {
            m.put(StandardSocketOptions.IP_MULTICAST_IF, multicastInterface);
        }
        return m;
    }
}
