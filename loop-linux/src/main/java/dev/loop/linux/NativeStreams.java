package dev.loop.linux;

import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.unix.Socket;
import dev.loop.spi.SocketErrors;
import dev.loop.spi.UnixIo.IoPeerCredentials;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.NotYetConnectedException;
import java.net.SocketAddress;

/**
 * The calls every backend makes the same way on a native stream socket, with Netty's exceptions
 * translated to the JDK's ({@link NativeErrors}). Static, so a socket handle pays no field for them:
 * io_uring keeps its per-socket memory small on purpose.
 */
public final class NativeStreams {
    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    /** {@code struct ucred}: pid, uid, gid, each 32 bits. */
    private static final int UCRED_SIZE = 12;

    private NativeStreams() {
    }

    /**
     * The credentials of the peer of the connected Unix domain socket {@code s}, from
     * {@code getsockopt(SO_PEERCRED)} through {@code Socket.getRawOpt}, the public way to it (the
     * transports' {@code getPeerCredentials} is package-private).
     */
    public static IoPeerCredentials peerCredentials(Socket s) throws IOException {
        ByteBuffer ucred = ByteBuffer.allocateDirect(UCRED_SIZE).order(ByteOrder.nativeOrder());
        try {
            s.getRawOpt(SOL_SOCKET, SO_PEERCRED, ucred);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        }
        return new IoPeerCredentials(ucred.getInt(0), Integer.toUnsignedLong(ucred.getInt(4)),
                Integer.toUnsignedLong(ucred.getInt(8)));
    }

    /**
     * Whether the non-blocking connect of {@code s} has finished.
     *
     * @throws java.net.ConnectException naming {@code remote} when it failed
     */
    public static boolean finishConnect(Socket s, SocketAddress remote) throws IOException {
        try {
            return s.finishConnect();
        } catch (IOException e) {
            throw NativeErrors.translate(Call.CONNECT, e, remote);
        }
    }

    /**
     * Shuts the output down: the peer reads end of stream once what was sent arrives.
     *
     * @throws java.net.SocketException "Transport endpoint is not connected" when the peer reset the
     *         connection before we read the reset, as the JDK says it on select
     */
    public static void shutdownOutput(Socket s) throws IOException {
        try {
            s.shutdown(false, true);
        } catch (IOException e) {
            throw NativeErrors.translate(Call.IO, e, null);
        } catch (NotYetConnectedException e) {
            // ENOTCONN: Netty reports it unchecked, which would escape whoever shut the output
            // down (an idle timer's callback, say) instead of closing the connection.
            throw SocketErrors.of(Call.IO, SocketErrors.ENOTCONN, "Transport endpoint is not connected", null);
        }
    }

    /**
     * Sets {@code SO_LINGER} to 0, so that closing sends a reset instead of a FIN. Best effort: on a
     * socket already closed or never connected an orderly close is all there is.
     */
    public static void lingerZero(Socket s) {
        try {
            s.setSoLinger(0);
        } catch (IOException ignored) {
            // see above: the close that follows still happens
        }
    }
}
