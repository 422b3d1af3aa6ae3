package dev.loop.linux;

import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.SocketOption;
import java.util.Map;

/** Making a listening socket of Netty's native {@link Socket}, the same for TCP and Unix domain sockets. */
public final class NativeListen {
    private NativeListen() {
    }

    /**
     * Sets {@code options}, binds {@code s} to {@code address} and listens. The caller closes
     * {@code s} when this throws.
     *
     * @param named   what a failed bind names (the address, or a Unix path or abstract name)
     * @param backlog the accept queue length, or 0 for {@code defaultBacklog}
     * @throws java.net.BindException naming {@code named} when the bind fails (see {@link dev.loop.spi.SocketErrors})
     */
    public static void bindAndListen(Socket s, SocketAddress address, Object named, int backlog, int defaultBacklog,
                                     Map<SocketOption<?>, Object> options, String backend) throws IOException {
        NativeSocketOptions.applyAll(s, options, backend);
        try {
            s.bind(address);
            s.listen(backlog > 0 ? backlog : defaultBacklog); // may meet EADDRINUSE too (SO_REUSEPORT)
        } catch (IOException e) {
            throw NativeErrors.translate(Call.BIND, e, named);
        }
    }
}
