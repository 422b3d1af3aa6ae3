package dev.loop;

/**
 * Receives exceptions that escape callbacks and other errors nobody else can receive (asyncio's
 * exception handler). Called on the loop thread; an exception it throws is logged and dropped.
 */
@FunctionalInterface
public interface LoopExceptionHandler {
    /**
     * @param message what happened
     * @param error   the exception, or {@code null} for a report that has none
     * @param source  the callback, future or task concerned, or {@code null}
     */
    void handle(Loop loop, String message, Throwable error, Object source);
}
