package dev.loop.linux;

import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.SocketOption;
import java.net.StandardSocketOptions;
import java.util.Map;

/** The {@link StandardSocketOptions} the native backends map onto Netty's {@link Socket} setters. */
public final class NativeSocketOptions {
    private NativeSocketOptions() {
    }

    /** Sets every option of {@code options}; see {@link #apply}. */
    public static void applyAll(Socket s, Map<SocketOption<?>, Object> options, String backend) throws IOException {
        for (Map.Entry<SocketOption<?>, Object> e : options.entrySet()) {
            apply(s, e.getKey(), e.getValue(), backend);
        }
    }

    /**
     * Sets one option.
     *
     * @throws UnsupportedOperationException for an option not mapped, naming it and {@code backend}
     */
    public static void apply(Socket s, SocketOption<?> option, Object value, String backend) throws IOException {
        try {
            set(s, option, value, backend);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null); // setsockopt's errors, as the JDK's types
        }
    }

    private static void set(Socket s, SocketOption<?> option, Object value, String backend) throws IOException {
        if (option == StandardSocketOptions.TCP_NODELAY) {
            s.setTcpNoDelay((Boolean) value);
        } else if (option == StandardSocketOptions.SO_KEEPALIVE) {
            s.setKeepAlive((Boolean) value);
        } else if (option == StandardSocketOptions.SO_SNDBUF) {
            s.setSendBufferSize((Integer) value);
        } else if (option == StandardSocketOptions.SO_RCVBUF) {
            s.setReceiveBufferSize((Integer) value);
        } else if (option == StandardSocketOptions.SO_LINGER) {
            s.setSoLinger((Integer) value);
        } else if (option == StandardSocketOptions.SO_REUSEADDR) {
            s.setReuseAddress((Boolean) value);
        } else if (option == StandardSocketOptions.SO_REUSEPORT) {
            s.setReusePort((Boolean) value);
        } else {
            throw new UnsupportedOperationException("backend " + backend + " does not support " + option.name());
        }
    }
}
