/**
 * Networking on any backend with sockets, the public API only: TCP, TLS and Unix domain sockets
 * ({@link dev.loop.net.Net}, {@link dev.loop.net.Unix}, {@link dev.loop.net.Connection},
 * {@link dev.loop.net.Server}, {@link dev.loop.net.ConnectionHandler}), UDP
 * ({@link dev.loop.net.Datagrams}), descriptor watches ({@link dev.loop.net.Watch}), servers across
 * a {@link dev.loop.LoopGroup}, and their options.
 *
 * <p>The implementation is in packages that are not exported, by concern: {@code .transport}
 * (helpers of the byte-pipe contract, readiness coalescing, the per-loop registry), {@code .stream}
 * (connections and servers), {@code .tls} (the TLS layer), {@code .dgram} (UDP), {@code .names}
 * (host names and Happy Eyeballs, over this package's own {@code Net.connect}). This package is
 * their facade: its entry points open what those packages implement.
 *
 * <p>May use: the public API of {@code dev.loop}, {@code dev.loop.spi}, and the internal packages
 * above as the facade. See docs/adr/0013-networking-layout.md.
 */
package dev.loop.net;
