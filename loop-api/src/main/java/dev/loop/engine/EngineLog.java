package dev.loop.engine;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Where the engine writes what it cannot hand to anyone: the {@code dev.loop} logger, and a last
 * resort for when logging itself fails. Nothing here throws, so the loop's error path cannot be the
 * thing that kills the loop. Thread-safe.
 */
final class EngineLog {
    private static final System.Logger LOG = System.getLogger("dev.loop");
    /**
     * Printed when even logging failed. A constant, so printing it needs no formatting and almost
     * no memory (the failure may be an {@link OutOfMemoryError}).
     */
    private static final String LOST = "dev.loop: an error could not be reported: the exception handler and the "
            + "logger both failed (counted in Loop.diagnostics().failedReports())";

    private final String prefix;
    /** Allocated up front: counting a lost report must not need memory either. */
    private final AtomicLong failed = new AtomicLong();

    EngineLog(String backendName) {
        this.prefix = "loop (" + backendName + "): ";
    }

    /** Logs at ERROR; if that fails, {@link #lost()}. */
    void error(String message, Throwable error) {
        try {
            LOG.log(System.Logger.Level.ERROR, prefix + message, error);
        } catch (Throwable loggingFailed) {
            lost();
        }
    }

    /** The exception handler threw while handling {@code error}: both are logged, the original as suppressed. */
    void handlerFailed(String message, Throwable error, Throwable handlerFailed) {
        try {
            if (error != null && handlerFailed != error) {
                handlerFailed.addSuppressed(error);
            }
            error("the loop's exception handler failed while handling: " + message, handlerFailed);
        } catch (Throwable noMemoryForTheMessage) {
            lost();
        }
    }

    /** Logs at WARNING; if that fails, {@link #lost()}. */
    void warning(String message) {
        try {
            LOG.log(System.Logger.Level.WARNING, prefix + message);
        } catch (Throwable loggingFailed) {
            lost();
        }
    }

    /** An error nobody could be told about: counted, and a fixed line on standard error. */
    void lost() {
        failed.incrementAndGet();
        try {
            System.err.println(LOST);
        } catch (Throwable ignored) {
            // nowhere left to write; the count still says it happened
        }
    }

    long failed() {
        return failed.get();
    }

    /** {@code String.valueOf(o)}, or a description that needs no code of {@code o}'s if its toString() throws. */
    static String describe(Object o) {
        try {
            return String.valueOf(o);
        } catch (Throwable toStringFailed) {
            try {
                return o.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(o))
                        + " (its toString() threw " + toStringFailed.getClass().getName() + ")";
            } catch (Throwable t) {
                return "(an object whose toString() threw)";
            }
        }
    }
}
