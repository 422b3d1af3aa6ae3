/**
 * Queues and synchronization for tasks, in the manner of asyncio's {@code queues} and
 * {@code locks}: {@link dev.loop.sync.AsyncQueue}, {@link dev.loop.sync.AsyncLock},
 * {@link dev.loop.sync.AsyncEvent}, {@link dev.loop.sync.AsyncSemaphore},
 * {@link dev.loop.sync.AsyncCondition}. Fair and cancellation-safe; not thread-safe (one loop's
 * tasks and callbacks).
 *
 * <p>May use: the public API of {@code dev.loop} only ({@link dev.loop.Loop#current()},
 * {@link dev.loop.Async}, {@link dev.loop.Promise}): they are what any user could build on the loop.
 */
package dev.loop.sync;
