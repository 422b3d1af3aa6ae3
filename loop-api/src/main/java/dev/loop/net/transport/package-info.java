/**
 * What every networking stack shares, below all of them (not exported): readiness coalescing
 * ({@link dev.loop.net.transport.CoalescedReadiness}), the plumbing of a layer over an
 * {@link dev.loop.spi.IoTransport} ({@link dev.loop.net.transport.LayeredTransport}), the per-loop
 * registry of sockets ({@link dev.loop.net.transport.NetRegistry}), the checks every entry point
 * makes, watermarked queues, addresses, and descriptor watches.
 *
 * <p>May use: {@code dev.loop}, {@code dev.loop.spi}, {@code dev.loop.engine} (the loop's backend
 * and the registry kept as an engine extension), the public types of {@code dev.loop.net}, and {@code dev.loop.log}. Not
 * {@code .stream}, {@code .tls} or {@code .dgram}: they are built on this package. See
 * docs/adr/0013-networking-layout.md.
 */
package dev.loop.net.transport;
