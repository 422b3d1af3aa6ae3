/**
 * Stream connections and servers, TCP and Unix domain (not exported): the connection's state
 * machine, its reader and writer and their buffers, listening sockets, and listening across a loop
 * group. A connection holds one {@link dev.loop.spi.IoTransport}: the backend's socket, or a TLS
 * layer it asks {@code .tls} for and swaps in itself.
 *
 * <p>May use: {@code dev.loop}, {@code dev.loop.spi}, {@code dev.loop.engine}, the public types of
 * {@code dev.loop.net}, {@code .transport} and {@code .tls}, and {@code dev.loop.log}. See docs/adr/0013-networking-layout.md.
 */
package dev.loop.net.stream;

import dev.loop.net.Unix;
