/**
 * What plugs in below the loop: I/O backends ({@link dev.loop.spi.BackendProvider},
 * {@link dev.loop.spi.IoDriver}, and for sockets {@link dev.loop.spi.NetIo} with its handles),
 * timer strategies ({@link dev.loop.spi.TimerQueueProvider}, {@link dev.loop.spi.TimerQueue},
 * {@link dev.loop.spi.TimerNode}) and the clock ({@link dev.loop.spi.LoopClock}). Backends and
 * timer strategies are found with {@link java.util.ServiceLoader}.
 *
 * <p>May use: the JDK only. Used by every other package and by the backend modules.
 * See docs/adr/0004-io-spi.md and docs/adr/0006-layout.md.
 */
package dev.loop.spi;
