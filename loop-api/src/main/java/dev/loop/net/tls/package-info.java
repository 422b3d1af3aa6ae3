/**
 * TLS as a layer over any byte pipe (not exported): {@link dev.loop.net.tls.TlsTransport}
 * implements {@link dev.loop.spi.IoTransport} over another one, with the JDK's {@code SSLEngine}.
 * It sees the transport below and the readiness receiver above, never a connection.
 *
 * <p>May use: {@code dev.loop}, {@code dev.loop.spi}, {@code dev.loop.engine}, the public types of
 * {@code dev.loop.net} and {@code .transport}. Not {@code .stream}. See docs/adr/0009-tls.md and
 * docs/adr/0013-networking-layout.md.
 */
package dev.loop.net.tls;
