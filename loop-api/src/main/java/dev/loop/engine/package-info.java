/**
 * The run loop under every {@link dev.loop.Loop}, not exported: {@link dev.loop.engine.Engine}
 * (ready queue, {@code runOnce}, wake-ups, closing), {@link dev.loop.engine.Inbox} (the MPSC door
 * for other threads), {@link dev.loop.engine.EngineTimer} and debug instrumentation.
 *
 * <p>May use: {@code dev.loop.spi} (the backend, timer queue and clock it drives), JCTools, and
 * {@code dev.loop.log} (the form of its records).
 * It names nothing above it: futures, tasks and sockets are built on it by {@code dev.loop} and
 * {@code dev.loop.net}, which keep their per-loop state as {@linkplain
 * dev.loop.engine.Engine#extension extensions} and {@linkplain dev.loop.engine.Engine#addCloseHook
 * close hooks}. See docs/adr/0006-layout.md.
 */
package dev.loop.engine;
