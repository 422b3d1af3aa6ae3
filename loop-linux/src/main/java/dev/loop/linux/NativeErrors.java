package dev.loop.linux;

import dev.loop.spi.SocketErrors;
import dev.loop.spi.SocketErrors.Call;
import io.netty.channel.ChannelException;
import io.netty.channel.unix.Errors;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.nio.channels.ClosedChannelException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Netty's native errors turned into the JDK's exceptions through {@link SocketErrors}, the table
 * every backend throws from: the native backends call this wherever a Netty call can fail, and
 * build no exception of their own for an error number. Netty's exceptions are dropped, not kept as
 * causes: a caller walking the cause chain must not meet a type of a library it never chose.
 */
public final class NativeErrors {
    /** Netty 4.2 writes the negated errno into the message of the {@code ConnectException}s it builds. */
    private static final Pattern ERRNO = Pattern.compile("failed with error\\((-?\\d+)\\)");
    /**
     * What Netty puts before the system's text: {@code "recv(..) failed: "}, {@code "... error(-104): "}
     * from its Java code, {@code "recvfrom() failed: "} from its C code.
     */
    private static final Pattern PREFIX = Pattern.compile("^[A-Za-z0-9_]+\\((?:\\.\\.)?\\) failed(?: with error\\(-?\\d+\\))?(?:: |$)");

    private NativeErrors() {
    }

    /**
     * The exception for a native call's negative result {@code res} (an io_uring completion, a
     * raw system call), as {@link SocketErrors} has it.
     */
    public static SocketException ofResult(Call call, int res, Object address) {
        return SocketErrors.of(call, -res, null, address);
    }

    /**
     * {@code e}, thrown by one of Netty's native socket calls while doing {@code call}, as
     * {@link SocketErrors} has it. The JDK's exceptions that carry no error number (a closed
     * channel) come back as they are.
     *
     * @param address what a connect or bind names; ignored for {@link Call#IO}
     */
    public static IOException translate(Call call, IOException e, Object address) {
        if (e instanceof ClosedChannelException) {
            return e;
        }
        int errno = errnoOf(e);
        SocketException mapped = SocketErrors.of(call, errno, errno == 0 ? textOf(e) : null, address);
        mapped.setStackTrace(e.getStackTrace());
        return mapped;
    }

    /** Opens a native socket; see {@link #opened}. */
    @FunctionalInterface
    public interface Opener<S> {
        S open() throws IOException;
    }

    /**
     * The socket {@code opener} makes, or the JDK's exception for why it could not: Netty wraps a
     * failed {@code socket(2)} (at the open-file limit, typically) in its own unchecked
     * {@link ChannelException}.
     */
    public static <S> S opened(Opener<S> opener) throws IOException {
        try {
            return opener.open();
        } catch (ChannelException e) {
            throw e.getCause() instanceof IOException io ? translate(Call.IO, io, null)
                    : new SocketException("opening a socket failed: " + e.getMessage());
        } catch (IOException e) {
            throw translate(Call.IO, e, null);
        }
    }

    /**
     * The error number {@code e} stands for (positive), or 0 when it names none. Netty keeps it in
     * {@link Errors.NativeIoException}; for a failed connect it builds a {@code ConnectException}
     * with the number in its message, a {@code NoRouteToHostException} without one (either kind of
     * unreachable: the host is the likelier) or, for a missing Unix path, a
     * {@code FileNotFoundException}; a refused datagram is a {@code PortUnreachableException}
     * without the number.
     */
    static int errnoOf(IOException e) {
        if (e instanceof Errors.NativeIoException n) {
            return Math.abs(n.expectedErr()); // negated, as every Netty native call returns it
        }
        if (e instanceof FileNotFoundException) {
            return SocketErrors.ENOENT;
        }
        if (e instanceof PortUnreachableException) { // Netty's C code says only "recvfrom() failed"
            return SocketErrors.ECONNREFUSED;
        }
        if (e instanceof NoRouteToHostException && e.getMessage() == null) {
            return SocketErrors.EHOSTUNREACH;
        }
        String message = e.getMessage();
        if (message != null) {
            Matcher m = ERRNO.matcher(message);
            if (m.find()) {
                return Math.abs(Integer.parseInt(m.group(1)));
            }
            return SocketErrors.errnoOf(PREFIX.matcher(message).replaceFirst(""));
        }
        return 0;
    }

    /** The system's text in {@code e}'s message, without Netty's prefix. */
    private static String textOf(IOException e) {
        return e.getMessage() == null ? e.getClass().getSimpleName() : PREFIX.matcher(e.getMessage()).replaceFirst("");
    }
}
