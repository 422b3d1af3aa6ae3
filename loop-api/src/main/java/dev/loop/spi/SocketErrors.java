package dev.loop.spi;

import java.io.IOException;
import java.net.BindException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.PortUnreachableException;
import java.net.SocketException;
import java.util.HashMap;
import java.util.Map;

/**
 * The one table of socket failures every backend throws from: a kernel's error number (or, for a
 * backend on the JDK's channels, the JDK's message for it) becomes the same JDK exception, with the
 * same message, whichever backend met it. A user's {@code catch (SocketException e)} or
 * {@code catch (ConnectException e)} then works on every backend, and no backend's own types
 * reach the user.
 *
 * <p>The classes are the JDK's, chosen as its {@code SocketChannel} and {@code DatagramChannel}
 * choose them, with two deliberate differences: any failure of data transfer is a
 * {@link SocketException} (the JDK throws a plain {@code IOException} for a failed write), and an
 * unreachable network is a {@link NoRouteToHostException} like an unreachable host (the JDK makes
 * it a plain {@code SocketException}; both mean there is no route). The message is the system's
 * text for the error ({@code strerror}), except a reset, which is the JDK's "Connection reset"
 * whether a read or a write met it. Failures of connecting and binding name the address
 * ({@code "Connection refused: /127.0.0.1:4567"}); failures on an open connection do not (its
 * future already belongs to that connection).
 *
 * <p>The numbers are Linux's: the native backends run on Linux only, and a backend on the JDK's
 * channels is matched by text, which works wherever the system's texts are the usual ones.
 * Stateless and thread-safe.
 */
public final class SocketErrors {
    /** What the failed call was doing: it decides the class where one error means different things. */
    public enum Call {
        /** Connecting: the outcome of {@code connect}, at once or later ({@code SO_ERROR}). */
        CONNECT,
        /** Binding or listening. */
        BIND,
        /**
         * Everything else: opening a socket, accepting, reading, writing, shutting down, sending
         * and receiving datagrams, setting options.
         */
        IO
    }

    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EAGAIN = 11;
    public static final int EACCES = 13;
    public static final int ENFILE = 23;
    public static final int EMFILE = 24;
    public static final int EPIPE = 32;
    public static final int EADDRINUSE = 98;
    public static final int EADDRNOTAVAIL = 99;
    public static final int ENETUNREACH = 101;
    public static final int ECONNABORTED = 103;
    public static final int ECONNRESET = 104;
    public static final int ENOTCONN = 107;
    public static final int ETIMEDOUT = 110;
    public static final int ECONNREFUSED = 111;
    public static final int EHOSTUNREACH = 113;

    /** The JDK's text for a reset, used for every reset so a read and a write say the same. */
    static final String RESET = "Connection reset";
    /** The JDK's text for a refused datagram ({@code DatagramChannel}'s own). */
    static final String PORT_UNREACHABLE = "ICMP port unreachable";

    /** Linux's error numbers a socket call can meet, with glibc's {@code strerror} text. */
    private static final Map<Integer, String> TEXT = new HashMap<>();
    /** The other way: each text to its number, for errors the JDK already turned into text. */
    private static final Map<String, Integer> NUMBER = new HashMap<>();

    static {
        text(EPERM, "Operation not permitted");
        text(ENOENT, "No such file or directory");
        text(4, "Interrupted system call");
        text(9, "Bad file descriptor");
        text(EAGAIN, "Resource temporarily unavailable");
        text(12, "Cannot allocate memory");
        text(EACCES, "Permission denied");
        text(14, "Bad address");
        text(22, "Invalid argument");
        text(ENFILE, "Too many open files in system");
        text(EMFILE, "Too many open files");
        text(EPIPE, "Broken pipe");
        text(88, "Socket operation on non-socket");
        text(89, "Destination address required");
        text(90, "Message too long");
        text(91, "Protocol wrong type for socket");
        text(92, "Protocol not available");
        text(93, "Protocol not supported");
        text(95, "Operation not supported");
        text(97, "Address family not supported by protocol");
        text(EADDRINUSE, "Address already in use");
        text(EADDRNOTAVAIL, "Cannot assign requested address");
        text(100, "Network is down");
        text(ENETUNREACH, "Network is unreachable");
        text(102, "Network dropped connection on reset");
        text(ECONNABORTED, "Software caused connection abort");
        text(ECONNRESET, "Connection reset by peer");
        text(105, "No buffer space available");
        text(106, "Transport endpoint is already connected");
        text(ENOTCONN, "Transport endpoint is not connected");
        text(108, "Cannot send after transport endpoint shutdown");
        text(ETIMEDOUT, "Connection timed out");
        text(ECONNREFUSED, "Connection refused");
        text(112, "Host is down");
        text(EHOSTUNREACH, "No route to host");
        text(114, "Operation already in progress");
        text(115, "Operation now in progress");
        text(125, "Operation canceled");
        // the JDK's own words for two of them
        NUMBER.put(RESET, ECONNRESET);
        NUMBER.put(PORT_UNREACHABLE, ECONNREFUSED);
    }

    private static void text(int errno, String text) {
        TEXT.put(errno, text);
        NUMBER.put(text, errno);
    }

    private SocketErrors() {
    }

    /**
     * The exception for error number {@code errno} (positive) met while doing {@code call}.
     *
     * @param fallback the system's text for a number this table does not know (null: "error N")
     * @param address  what a connect or bind names (the address, a Unix path); ignored for
     *                 {@link Call#IO}
     */
    public static SocketException of(Call call, int errno, String fallback, Object address) {
        String text = errno == ECONNRESET ? RESET : TEXT.get(errno);
        if (text == null) {
            text = fallback != null ? fallback : "error " + errno;
        }
        String named = call == Call.IO || address == null ? text : text + ": " + address;
        return switch (call) {
            case CONNECT -> switch (errno) {
                case ENETUNREACH, EHOSTUNREACH -> new NoRouteToHostException(named);
                case EADDRINUSE, EADDRNOTAVAIL -> new BindException(named); // no local port left
                case ECONNRESET -> new SocketException(named);
                default -> new ConnectException(named);
            };
            case BIND -> switch (errno) {
                case EADDRINUSE, EADDRNOTAVAIL, EACCES, EPERM -> new BindException(named);
                default -> new SocketException(named);
            };
            case IO -> switch (errno) {
                case ECONNREFUSED -> new PortUnreachableException(PORT_UNREACHABLE); // a datagram's ICMP answer
                case ENETUNREACH, EHOSTUNREACH -> new NoRouteToHostException(named);
                default -> new SocketException(named);
            };
        };
    }

    /** The error number whose text (or the JDK's text for it) is {@code message}, or 0. */
    public static int errnoOf(String message) {
        Integer n = message == null ? null : NUMBER.get(message);
        return n == null ? 0 : n;
    }

    /**
     * {@code e}, an exception of the JDK's channels, as this table has it: the same class and
     * message a native backend throws for the same error. An exception whose message is no error
     * text (a closed channel, a message of the backend's own) comes back as it is.
     *
     * @param address what a connect or bind names; ignored for {@link Call#IO}
     */
    public static IOException translate(Call call, IOException e, Object address) {
        int errno = errnoOf(e.getMessage());
        if (errno == 0) {
            return e;
        }
        SocketException mapped = of(call, errno, null, address);
        mapped.setStackTrace(e.getStackTrace()); // where the JDK met it, not where it was translated
        return mapped;
    }
}
