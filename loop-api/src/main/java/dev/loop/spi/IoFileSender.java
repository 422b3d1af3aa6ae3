package dev.loop.spi;

import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * An optional capability of an {@link IoTransport}: sending a file's bytes to the peer without
 * copying them through the JVM (the kernel's {@code sendfile(2)}, or what the backend has like it).
 * Not thread-safe: loop thread only.
 *
 * <p>A backend opts in by answering {@link IoTransport#fileSender} with a sender for the files it
 * can send this way; a transport that cannot (a TLS layer, whose bytes must be encrypted in the
 * JVM, or a backend without such a call) answers null, and the connection above reads the file
 * into its own buffers and writes them instead. Nothing above the transport branches on the
 * backend.
 *
 * <p>The rules are those of {@link IoTransport#write}: non-blocking, and only after everything
 * the transport took before has been handed to the kernel, so bytes leave in the order they were
 * given. A transport that still holds taken bytes of its own (a completion backend's send in
 * flight) answers 0 and reports {@link IoReady#WRITE} once they are gone.
 */
public interface IoFileSender {

    /**
     * Sends up to {@code count} bytes of {@code file} starting at {@code position} without
     * blocking; the file's own position does not move.
     *
     * @return bytes sent ({@code > 0}); 0 if the socket can take none now, in which case
     *         {@link IoReady#WRITE} is reported (while asked for) once it can; -1 if the file has
     *         no byte at {@code position} (it ends there)
     * @throws IOException when the connection failed (reset by the peer, for example), as
     *                     {@link SocketErrors} has it; or when the file could not be read
     */
    long sendFile(FileChannel file, long position, long count) throws IOException;
}
