/**
 * Networking on any backend with sockets: the public API ({@link dev.loop.net.Net},
 * {@link dev.loop.net.Connection}, {@link dev.loop.net.Server}, {@link dev.loop.net.ConnectionHandler},
 * options, and servers across a {@link dev.loop.LoopGroup}) and, package-private, its
 * implementation, written once above the backends' readiness SPI.
 *
 * <p>May use: the public API of {@code dev.loop}, {@code dev.loop.spi} (the sockets a backend
 * opens) and {@code dev.loop.engine} for two things only: the loop's backend
 * ({@code Engine.io()}) and the per-loop registry of sockets kept as an engine extension that
 * closes with the loop. See docs/adr/0004-io-spi.md and docs/adr/0006-layout.md.
 */
package dev.loop.net;
