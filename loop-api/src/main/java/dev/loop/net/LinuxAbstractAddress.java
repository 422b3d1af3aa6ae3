package dev.loop.net;

import java.io.Serial;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * A Unix domain socket name in Linux's abstract namespace: no file, no permissions, gone with the
 * last socket bound to it (a crashed server leaves nothing to clean up). The JDK's
 * {@link java.net.UnixDomainSocketAddress} holds file system paths only, so abstract names have a
 * type of their own; backends that cannot reach the namespace refuse it with an
 * {@link UnsupportedOperationException} naming themselves. Immutable.
 *
 * <p>Printed as {@code @name}, as {@code ss} and {@code socat} print it.
 */
public final class LinuxAbstractAddress extends SocketAddress {
    @Serial
    private static final long serialVersionUID = 1L;

    /** {@code sun_path} holds 108 bytes, the first of which is the NUL that marks a name abstract. */
    public static final int MAX_NAME_BYTES = 107;

    private final String name;

    private LinuxAbstractAddress(String name) {
        this.name = name;
    }

    /**
     * The abstract name {@code name} (without the leading NUL byte the kernel puts in front).
     *
     * @throws IllegalArgumentException if it is empty, holds a NUL, or is longer than
     *                                  {@link #MAX_NAME_BYTES} bytes in UTF-8
     */
    public static LinuxAbstractAddress of(String name) {
        Objects.requireNonNull(name, "name");
        if (name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("an abstract socket name is not empty and holds no NUL: \"" + name + "\"");
        }
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("abstract socket name of " + bytes + " bytes is longer than the "
                    + MAX_NAME_BYTES + " bytes Linux allows: @" + name);
        }
        return new LinuxAbstractAddress(name);
    }

    /** The name, without the leading NUL. */
    public String name() {
        return name;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LinuxAbstractAddress a && a.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return "@" + name;
    }
}
