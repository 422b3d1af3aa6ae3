package dev.loop.log;

import java.net.Inet6Address;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * The context in front of a log record's message, in one form everywhere:
 * {@code [loop-3-epoll task=Task-7 conn=127.0.0.1:8080->127.0.0.1:41234] message}. The loop's
 * name always; the task's name when the record is written from or about a task; the connection's
 * local and remote addresses when it is about a connection ({@code server=} and the listening
 * address for a listener). {@code System.Logger} has no MDC, so the context has to be in the
 * message text, where a JUL, SLF4J or Log4j bridge shows it as it is (docs/adr/0020).
 *
 * <p>Made per record and only once the level is known to be enabled: a site checks
 * {@code isLoggable} first, so a disabled record allocates nothing, then writes
 * {@code logger.log(level, context.line(message), error)}. One use, one thread: not
 * thread-safe. Nothing here throws on account of what it describes: a subject that fails to
 * describe itself is left out.
 */
public final class LogContext {
    private final StringBuilder line = new StringBuilder(112);
    private boolean task;
    private boolean where;

    private LogContext(String loop) {
        line.append('[').append(loop);
    }

    /** A context naming the loop ({@code Loop.name()}, e.g. {@code loop-3-epoll}). */
    public static LogContext of(String loopName) {
        return new LogContext(loopName);
    }

    /** Adds {@code task=<name>}; the first task given wins (the subject's, then the running one). */
    public LogContext task(String name) {
        if (!task && name != null) {
            task = true;
            line.append(" task=").append(name);
        }
        return this;
    }

    /**
     * Adds {@code conn=<local>-><remote>}: the local address first, as {@code ss} prints a socket,
     * the peer after the arrow, whichever side connected. A remote of null (an unconnected
     * datagram endpoint) leaves the arrow out. The first connection or server given wins.
     */
    public LogContext connection(SocketAddress local, SocketAddress remote) {
        if (!where) {
            where = true;
            line.append(" conn=");
            address(local);
            if (remote != null) {
                line.append("->");
                address(remote);
            }
        }
        return this;
    }

    /** Adds {@code server=<listening address>}, unless a connection or server was given already. */
    public LogContext server(SocketAddress local) {
        if (!where) {
            where = true;
            line.append(" server=");
            address(local);
        }
        return this;
    }

    /** Adds what {@code subject} says of itself if it is a {@link Subject}; anything else adds nothing. */
    public LogContext about(Object subject) {
        if (subject instanceof Subject s) {
            try {
                s.describeTo(this);
            } catch (RuntimeException describingFailed) {
                // a closing socket may no longer know its address: the record goes without it
            }
        }
        return this;
    }

    /**
     * The record's text: the context, then {@code message}. Ends this context's use. The site
     * passes it to its logger itself, so a formatter's source class and method stay the site's.
     */
    public String line(String message) {
        return line.append("] ").append(message).toString();
    }

    /**
     * An address as operators type it into grep: {@code 127.0.0.1:8080}, {@code [::1]:8080}, the
     * name where there is no address ({@code localhost:8080} unresolved), a Unix socket's path;
     * not {@code InetSocketAddress.toString()}'s {@code localhost/127.0.0.1:8080}.
     */
    private void address(SocketAddress a) {
        if (a instanceof InetSocketAddress i) {
            if (i.getAddress() == null) {
                line.append(i.getHostString());
            } else if (i.getAddress() instanceof Inet6Address) {
                line.append('[').append(i.getAddress().getHostAddress()).append(']');
            } else {
                line.append(i.getAddress().getHostAddress());
            }
            line.append(':').append(i.getPort());
        } else {
            line.append(a == null ? "?" : a.toString());
        }
    }

    /** What a record can be about and can name in its context: a task, a connection, a server. */
    public interface Subject {
        /** Adds this subject's part ({@link #task}, {@link #connection}, {@link #server}) to {@code context}. */
        void describeTo(LogContext context);
    }
}
