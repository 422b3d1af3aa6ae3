package dev.loop.engine;

import dev.loop.log.LogContext;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

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

    static {
        warmUp();
    }

    /** For the last-resort line, which must not need the context built (the loop's name alone). */
    private final String prefix;
    /** The context of a record about an object: {@link EngineReports#logContext}. */
    private final Function<Object, LogContext> context;
    /** Allocated up front: counting a lost report must not need memory either. */
    private final AtomicLong failed = new AtomicLong();

    EngineLog(String loopName, Function<Object, LogContext> context) {
        this.prefix = "[" + loopName + "] ";
        this.context = context;
    }

    /**
     * Does once, while descriptors are left, what writing the first log record would otherwise do
     * at the worst moment: the usual formatter (java.util.logging's SimpleFormatter) stamps each
     * record with the local time zone, whose rules are read from a file the first time, and prints
     * a stack trace through classes not loaded yet. A server whose first record is about accept
     * failing at the open-file limit could not write it, and nobody learnt why.
     */
    private static void warmUp() {
        try {
            java.time.ZonedDateTime now = java.time.ZonedDateTime.now();
            String.format("%1$tb %1$td, %1$tY %1$tl:%1$tM:%1$tS %1$Tp %2$s%n%4$s: %5$s%6$s%n", now, "", "", "", "", "");
            java.io.StringWriter trace = new java.io.StringWriter();
            new Throwable().printStackTrace(new java.io.PrintWriter(trace));
            LOG.isLoggable(System.Logger.Level.ERROR); // the logger's backend, found and configured
            LogContext.of("").connection(new java.net.InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0), null)
                    .line(""); // the context's classes, loaded
        } catch (Throwable t) {
            // nothing to prepare: a record that cannot be written later falls back to lost()
        }
    }

    /** Logs at ERROR, with the context of a record about {@code about}; if that fails, {@link #lost(String, Throwable)}. */
    void error(String message, Throwable error, Object about) {
        write(System.Logger.Level.ERROR, message, error, about);
    }

    private void write(System.Logger.Level level, String message, Throwable error, Object about) {
        try {
            if (LOG.isLoggable(level)) {
                LOG.log(level, context.apply(about).line(message), error);
            }
        } catch (Throwable loggingFailed) {
            lost(message, error);
        }
    }

    /** The exception handler threw while handling {@code error}: both are logged, the original as suppressed. */
    void handlerFailed(String message, Throwable error, Throwable handlerFailed, Object about) {
        try {
            if (error != null && handlerFailed != error) {
                handlerFailed.addSuppressed(error);
            }
            error("the loop's exception handler failed while handling: " + message, handlerFailed, about);
        } catch (Throwable noMemoryForTheMessage) {
            lost();
        }
    }

    /** Logs at WARNING, with the context of a record about {@code about}; if that fails, {@link #lost(String, Throwable)}. */
    void warning(String message, Object about) {
        write(System.Logger.Level.WARNING, message, null, about);
    }

    /** Whether a WARNING would be written: a caller checks before building a message. */
    boolean warningOn() {
        try {
            return LOG.isLoggable(System.Logger.Level.WARNING);
        } catch (Throwable loggingFailed) {
            return true; // write() then says what it can
        }
    }

    /**
     * Logging failed: the report's own one line (message and the exception's class and message,
     * no stack trace) on standard error, which needs no descriptor that is not open already, and
     * the report counted. If even that line cannot be made (no memory), {@link #lost()}.
     */
    void lost(String message, Throwable error) {
        String line;
        try {
            line = "dev.loop: " + prefix + message + (error == null ? "" : ": " + error)
                    + " (logging failed; counted in Loop.diagnostics().failedReports())";
        } catch (Throwable noMemoryForTheLine) {
            lost();
            return;
        }
        failed.incrementAndGet();
        try {
            System.err.println(line);
        } catch (Throwable ignored) {
            // nowhere left to write; the count still says it happened
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
