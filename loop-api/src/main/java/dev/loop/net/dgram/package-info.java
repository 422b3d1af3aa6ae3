/**
 * UDP endpoints (not exported): receiving, the send queue and its watermarks, on a backend's
 * {@link dev.loop.spi.IoDatagram}.
 *
 * <p>May use: {@code dev.loop}, {@code dev.loop.spi}, the public types of {@code dev.loop.net} and
 * {@code .transport}, and {@code dev.loop.log}. See docs/adr/0010-datagrams-and-unix-sockets.md and
 * docs/adr/0013-networking-layout.md.
 */
package dev.loop.net.dgram;
