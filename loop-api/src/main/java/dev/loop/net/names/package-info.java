/**
 * Host names (not exported): the system's lookup off the loop thread, a cache in front of any
 * {@link dev.loop.net.Resolver}, IP literals told apart from names without a lookup, and Happy
 * Eyeballs (RFC 8305), which races connects to a name's addresses through the public
 * {@link dev.loop.net.Net#connect(dev.loop.Loop, java.net.InetSocketAddress, dev.loop.net.ConnectionOptions)}.
 *
 * <p>May use: the public API of {@code dev.loop} and {@code dev.loop.net}, nothing internal. See
 * docs/adr/0015-names-and-happy-eyeballs.md.
 */
package dev.loop.net.names;
