package dev.loop.linux;

import io.netty.channel.unix.Buffer;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The native memory of one UDP socket's batched calls ({@link Mmsg}): an array of
 * {@code struct mmsghdr}, one {@code struct iovec} and one socket address per datagram, and the
 * datagrams' bytes. Loop thread only.
 *
 * <p>The layouts are Linux's on 64-bit machines: {@code msghdr} is name (8), name length (4 and
 * 4 of padding), iovec pointer (8), iovec count (8), control pointer (8), control length (8),
 * flags (4 and 4), then {@code mmsghdr}'s datagram length (4 and 4): 64 bytes.
 */
abstract class DatagramBatch {
    static final int MMSGHDR = 64;
    static final int IOVEC = 16;
    /** {@code sockaddr_in6} is 28 bytes ({@code sockaddr_in} 16): one slot of 32 holds either. */
    static final int SOCKADDR = 32;
    static final int SOCKADDR_IN = 16;
    static final int SOCKADDR_IN6 = 28;
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    private static final int NAME = 0;
    private static final int NAME_LEN = 8;
    private static final int IOV = 16;
    private static final int IOV_LEN = 24;
    static final int MSG_LEN = 56;

    final int slots;
    final ByteBuffer meta;
    final long metaAddress;
    final ByteBuffer data;
    final long dataAddress;

    DatagramBatch(int slots, int dataBytes) {
        this.slots = slots;
        meta = ByteBuffer.allocateDirect(slots * (MMSGHDR + IOVEC + SOCKADDR)).order(ByteOrder.nativeOrder());
        metaAddress = Buffer.memoryAddress(meta);
        data = ByteBuffer.allocateDirect(dataBytes);
        dataAddress = Buffer.memoryAddress(data);
        for (int i = 0; i < slots; i++) {
            meta.putLong(header(i) + IOV, metaAddress + iovec(i));
            meta.putLong(header(i) + IOV_LEN, 1);
        }
    }

    final int header(int i) {
        return i * MMSGHDR;
    }

    final int iovec(int i) {
        return slots * MMSGHDR + i * IOVEC;
    }

    final int sockaddr(int i) {
        return slots * (MMSGHDR + IOVEC) + i * SOCKADDR;
    }

    final void setName(int i, int length) {
        meta.putLong(header(i) + NAME, length == 0 ? 0 : metaAddress + sockaddr(i));
        meta.putInt(header(i) + NAME_LEN, length);
    }

    final void setBytes(int i, int offset, int length) {
        meta.putLong(iovec(i), dataAddress + offset);
        meta.putLong(iovec(i) + 8, length);
    }

    /**
     * Datagrams received by one {@code recvmmsg}, handed out one at a time. Each has a slot of
     * 64 KiB, more than any UDP datagram, so the kernel never cuts one: {@link #SLOTS} of them
     * are 512 KiB, held only by a socket that received datagrams back to back.
     */
    static final class Received extends DatagramBatch {
        static final int SLOTS = 8;
        static final int SLOT = 64 * 1024;
        private int count;
        private int next;
        /** The last call found fewer datagrams than it had room for: the socket was empty then. */
        boolean drained;
        // the last sender, kept so that a run of datagrams from one peer builds one address
        private long key0;
        private long key1;
        private long key2;
        private int key3;
        private InetSocketAddress last;

        Received() {
            super(SLOTS, SLOTS * SLOT);
            for (int i = 0; i < SLOTS; i++) {
                setBytes(i, i * SLOT, SLOT);
            }
        }

        /** Receives what waits, up to {@link #SLOTS}; the count, or -1 (none waiting, or an error). */
        int receive(int fd) {
            for (int i = 0; i < SLOTS; i++) {
                setName(i, SOCKADDR_IN6);
            }
            int n = Mmsg.recvmmsg(fd, metaAddress, SLOTS);
            if (n > 0) {
                count = n;
                next = 0;
                drained = n < SLOTS;
            }
            return n;
        }

        boolean hasNext() {
            return next < count;
        }

        /** Puts the next datagram into {@code dst} (cut to its room, as the kernel would) and returns its sender. */
        InetSocketAddress take(ByteBuffer dst) throws UnknownHostException {
            int i = next++;
            int n = Math.min(meta.getInt(header(i) + MSG_LEN), dst.remaining());
            int pos = dst.position();
            dst.put(pos, data, i * SLOT, n);
            dst.position(pos + n);
            return sender(sockaddr(i));
        }

        private InetSocketAddress sender(int at) throws UnknownHostException {
            long k0 = meta.getLong(at);
            long k1 = meta.getLong(at + 8);
            long k2 = meta.getLong(at + 16);
            int k3 = meta.getInt(at + 24);
            short family = meta.getShort(at);
            if (family == AF_INET) {
                k1 = k2 = k3 = 0; // beyond sockaddr_in: whatever the slot held before
            }
            if (last != null && k0 == key0 && k1 == key1 && k2 == key2 && k3 == key3) {
                return last;
            }
            int port = (meta.get(at + 2) & 0xff) << 8 | meta.get(at + 3) & 0xff;
            InetAddress address;
            if (family == AF_INET) {
                address = InetAddress.getByAddress(bytes(at + 4, 4));
            } else if (v4Mapped(at + 8)) {
                address = InetAddress.getByAddress(bytes(at + 20, 4)); // as Netty's recvfrom gives it
            } else {
                int scope = meta.getInt(at + 24);
                byte[] a = bytes(at + 8, 16);
                address = scope != 0 ? Inet6Address.getByAddress(null, a, scope) : InetAddress.getByAddress(a);
            }
            key0 = k0;
            key1 = k1;
            key2 = k2;
            key3 = k3;
            last = new InetSocketAddress(address, port);
            return last;
        }

        private boolean v4Mapped(int at) {
            for (int i = 0; i < 10; i++) {
                if (meta.get(at + i) != 0) {
                    return false;
                }
            }
            return meta.get(at + 10) == (byte) 0xff && meta.get(at + 11) == (byte) 0xff;
        }

        private byte[] bytes(int at, int n) {
            byte[] b = new byte[n];
            meta.get(at, b);
            return b;
        }
    }

    /**
     * Datagrams held for one {@code sendmmsg}, copied in back to back: at most {@link #SLOTS} of
     * them and {@link #BYTES} in all, each at most {@link #MAX_DATAGRAM} (a larger one is sent
     * on its own).
     */
    static final class Held extends DatagramBatch {
        static final int SLOTS = 32;
        static final int BYTES = 64 * 1024;
        static final int MAX_DATAGRAM = 8 * 1024;
        private final boolean ipv6;
        private final InetSocketAddress[] targets = new InetSocketAddress[SLOTS];
        private final int[] offsets = new int[SLOTS];
        private final int[] lengths = new int[SLOTS];
        /** The first datagram not yet sent, and how many are held from the start. */
        int first;
        int count;
        private int used;
        private InetSocketAddress lastTarget;
        private int lastName;

        Held(boolean ipv6) {
            super(SLOTS, BYTES);
            this.ipv6 = ipv6;
        }

        int pending() {
            return count - first;
        }

        /** Copies {@code src}'s datagram in; false (nothing changed) when it does not fit. */
        boolean hold(ByteBuffer src, InetSocketAddress target) {
            int len = src.remaining();
            if (count == SLOTS || len > MAX_DATAGRAM || used + len > BYTES) {
                return false;
            }
            int i = count;
            if (target == null) {
                setName(i, 0);
            } else if (lastTarget != null && (target == lastTarget || target.equals(lastTarget)) && i > 0) {
                meta.put(sockaddr(i), meta, sockaddr(i - 1), SOCKADDR);
                setName(i, lastName);
            } else {
                lastName = encode(sockaddr(i), target);
                lastTarget = target;
                setName(i, lastName);
            }
            data.put(used, src, src.position(), len);
            setBytes(i, used, len);
            targets[i] = target;
            offsets[i] = used;
            lengths[i] = len;
            used += len;
            count++;
            src.position(src.limit());
            return true;
        }

        /** Writes {@code target} as a socket address of this socket's family; returns its length. */
        private int encode(int at, InetSocketAddress target) {
            byte[] a = target.getAddress().getAddress();
            int port = target.getPort();
            meta.put(at + 2, (byte) (port >>> 8));
            meta.put(at + 3, (byte) port);
            if (!ipv6) {
                meta.putShort(at, AF_INET);
                meta.put(at + 4, a);
                return SOCKADDR_IN;
            }
            meta.putShort(at, AF_INET6);
            meta.putInt(at + 4, 0); // flow information
            if (a.length == 4) { // an IPv4 peer from an IPv6 socket: ::ffff:a.b.c.d
                meta.putLong(at + 8, 0);
                meta.putShort(at + 16, (short) 0);
                meta.put(at + 18, (byte) 0xff);
                meta.put(at + 19, (byte) 0xff);
                meta.put(at + 20, a);
                meta.putInt(at + 24, 0);
            } else {
                meta.put(at + 8, a);
                meta.putInt(at + 24, target.getAddress() instanceof Inet6Address v6 ? v6.getScopeId() : 0);
            }
            return SOCKADDR_IN6;
        }

        /** Sends what is held from {@link #first}; how many the kernel took, or -1. */
        int send(int fd) {
            return Mmsg.sendmmsg(fd, metaAddress + header(first), count - first);
        }

        /** The first held datagram's target (null: the connected peer), address and length, for a send on its own. */
        InetSocketAddress firstTarget() {
            return targets[first];
        }

        long firstAddress() {
            return dataAddress + offsets[first];
        }

        int firstLength() {
            return lengths[first];
        }

        /** The next {@code n} held datagrams left (or were dropped). */
        void sent(int n) {
            for (int i = first; i < first + n; i++) {
                targets[i] = null;
            }
            first += n;
            if (first >= count) {
                first = count = used = 0;
                lastTarget = null;
            }
        }
    }
}
