/**
 * Child processes on a loop ({@link dev.loop.process.Processes}, {@link dev.loop.process.ChildProcess},
 * {@link dev.loop.process.ProcessOptions}): a child's stdin, stdout and stderr are the loop's
 * {@link dev.loop.net.Connection}s, each over a pipe transport (an {@link dev.loop.spi.IoTransport}
 * fed by a pump thread with credit) under the stream layer's connection, so reading, lines,
 * watermarks and {@code drain()} are the sockets' own code.
 *
 * <p>May use: the public API of {@code dev.loop} and {@code dev.loop.net}, {@code dev.loop.spi},
 * and {@code dev.loop.net.stream} and {@code .transport} for the connection it puts over a pipe.
 * See docs/adr/0016-subprocesses.md.
 */
package dev.loop.process;
