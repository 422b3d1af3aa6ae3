/**
 * Timer strategy {@code heap}, the default: a binary heap of {@link dev.loop.spi.TimerNode}s with
 * the index kept in the node, O(log n) add and cancel, FIFO among equal deadlines. The wheel of
 * {@code loop-timerwheel} orders each tick with the same heap.
 *
 * <p>May use: {@code dev.loop.spi}.
 */
package dev.loop.heap;
