/**
 * The loop and what every backend shares: the public API of the event loop ({@link dev.loop.Loop},
 * opened by {@link dev.loop.Loops}), futures ({@link dev.loop.LoopFuture}, {@link dev.loop.Promise}),
 * tasks ({@link dev.loop.Task}, {@link dev.loop.Async}, {@link dev.loop.TaskGroup},
 * {@link dev.loop.Timeout}, {@link dev.loop.TaskLocal}), loop groups, options and clocks; and,
 * package-private, their implementation: {@code DefaultLoop} (the loop assembled on the engine),
 * {@code DefaultPromise}, {@code LoopTask}, {@code TaskScheduler} and the two task mechanisms.
 *
 * <p>These types are one package because they name each other by design, as asyncio's do: a loop
 * spawns tasks and makes promises, a task is a future, a future names its loop. {@code Loop} and
 * the futures are sealed to their implementations here (docs/adr/0012-sealed-loop-and-futures.md),
 * so nothing above needs to downcast.
 *
 * <p>May use: {@code dev.loop.engine} (the run loop it is built on), {@code dev.loop.spi} and
 * {@code dev.loop.log} (the form of log records).
 * Used by: {@code dev.loop.sync}, {@code dev.loop.net}, and applications.
 * See docs/adr/0006-layout.md.
 */
package dev.loop;
