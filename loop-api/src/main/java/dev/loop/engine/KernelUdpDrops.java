package dev.loop.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;

/**
 * The datagrams Linux dropped at some UDP sockets, read from {@code /proc/net/udp} and
 * {@code /proc/net/udp6} (the {@code drops} column: a datagram that found the socket's receive
 * buffer full, or failed its checksum) when a metrics snapshot is taken, never per datagram.
 *
 * <p>Why this and not {@code SO_RXQ_OVFL}: that option makes the kernel attach the count to every
 * received datagram as a control message, which the JDK's {@code DatagramChannel} cannot read and
 * which would cost a larger {@code recvmsg} per datagram on the native backends; the table costs
 * nothing until someone looks. Its cost then grows with the UDP sockets of the whole network
 * namespace, about a line of text each (docs/BENCHMARKS.md has a measurement), which is why
 * {@link LoopStats#kernelUdpDrops()} reads it at most once a second.
 *
 * <p>Sockets are matched by local address and port, as the table prints them: sockets that share
 * one ({@code SO_REUSEPORT}) are counted together, whichever loop owns them.
 */
final class KernelUdpDrops {
    private static final Path UDP = Path.of("/proc/net/udp");
    private static final Path UDP6 = Path.of("/proc/net/udp6");
    private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private KernelUdpDrops() {
    }

    /**
     * The datagrams dropped at the sockets bound to {@code locals}; 0 when the kernel does not say
     * (not Linux, or {@code /proc} not readable). Any thread; blocks only on reading {@code /proc}.
     */
    static long of(Set<InetSocketAddress> locals) {
        if (locals.isEmpty()) {
            return 0;
        }
        Set<String> v4 = new HashSet<>();
        Set<String> v6 = new HashSet<>();
        for (InetSocketAddress a : locals) {
            byte[] b = a.getAddress().getAddress();
            if (a.getAddress() instanceof Inet4Address) {
                v4.add(key(b, a.getPort()));
                // an IPv6 socket bound to an IPv4 address (the JDK opens those by default) is in
                // the IPv6 table, under the address mapped: ::ffff:a.b.c.d
                byte[] mapped = new byte[16];
                mapped[10] = (byte) 0xff;
                mapped[11] = (byte) 0xff;
                System.arraycopy(b, 0, mapped, 12, 4);
                v6.add(key(mapped, a.getPort()));
            } else {
                v6.add(key(b, a.getPort()));
            }
        }
        return sum(UDP, v4) + sum(UDP6, v6);
    }

    private static long sum(Path table, Set<String> keys) {
        if (keys.isEmpty()) {
            return 0;
        }
        long drops = 0;
        try (BufferedReader r = Files.newBufferedReader(table, StandardCharsets.US_ASCII)) {
            r.readLine(); // the header
            for (String line; (line = r.readLine()) != null; ) {
                drops += drops(line, keys);
            }
        } catch (IOException | RuntimeException cannotTell) {
            return 0; // a metric is worth less than a snapshot that fails
        }
        return drops;
    }

    /** A row's drops if its local address is one of {@code keys}, else 0. */
    static long drops(String line, Set<String> keys) {
        String[] f = line.trim().split("\\s+");
        // sl, local_address, rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode, ref, pointer, drops
        if (f.length < 13 || !keys.contains(f[1])) {
            return 0;
        }
        return Long.parseLong(f[f.length - 1]);
    }

    /**
     * The address as the table prints it: the address's 32-bit words in hex, each as the machine
     * stores it (so 127.0.0.1 is {@code 0100007F} on x86), a colon, the port in four hex digits.
     */
    static String key(byte[] b, int port) {
        StringBuilder s = new StringBuilder(b.length * 2 + 5);
        for (int w = 0; w < b.length; w += 4) {
            for (int i = 0; i < 4; i++) {
                int x = b[w + (LITTLE_ENDIAN ? 3 - i : i)] & 0xff;
                s.append(Character.toUpperCase(Character.forDigit(x >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(x & 0xf, 16)));
            }
        }
        return s.append(':').append(String.format("%04X", port)).toString();
    }
}
