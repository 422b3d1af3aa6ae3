package dev.loop.spi;

/**
 * Hands readiness to a receiver: the one place where every backend's driver calls
 * {@link IoReady#onReady}, so a receiver that throws is caught, and reported, the same way on
 * every backend. Loop thread only.
 *
 * <p>Receivers only record bits and enqueue work, so a throw is a bug; but it happens inside the
 * backend's poll, where nothing may escape: Netty's native dispatch would take it for a broken
 * loop (log it and sleep a second), and a {@code Selector} would abandon the rest of the selected
 * keys. So it is caught here and given to the {@link Failures} the engine handed the driver
 * ({@link IoDriver#reportFailuresTo}), which reports it once, after the poll.
 */
public final class Readiness {
    private static final System.Logger LOG = System.getLogger("dev.loop.spi");

    /**
     * What a driver reports before the engine gave it anything (and what a driver keeps if it is
     * used without an engine): the JDK's platform logger, at {@code ERROR}.
     */
    public static final Failures LOGGED = (source, failure) ->
            LOG.log(System.Logger.Level.ERROR, "readiness receiver of " + source + " failed", failure);

    private Readiness() {
    }

    /**
     * Where a driver reports a receiver that threw. Called on the loop thread inside the poll, so,
     * like a receiver, an implementation only records or enqueues: the engine's one reports the failure
     * to the loop's exception handler in the callback phase.
     */
    @FunctionalInterface
    public interface Failures {
        /**
         * @param source  the backend's handle whose receiver threw (its {@code toString()} names
         *                the socket)
         * @param failure what the receiver threw
         */
        void receiverFailed(Object source, Throwable failure);

        /**
         * Writes a record of the backend's own on {@code logger} (a failed deregistration at DEBUG,
         * say), never throwing. The engine's implementation puts the loop's context in front of
         * {@code message} (the loop's name, the running task, what {@code about} names), as on
         * every record the loop writes; this default, for a driver used without an engine, writes
         * the message as it is.
         *
         * @param about what the record is about, or null
         */
        default void log(System.Logger logger, System.Logger.Level level, String message, Throwable error, Object about) {
            try {
                if (logger.isLoggable(level)) {
                    logger.log(level, message, error);
                }
            } catch (Throwable loggingFailed) {
                // a backend's record is never worth failing its caller for
            }
        }
    }

    /**
     * Calls {@code receiver.onReady(ops)}; nothing when {@code receiver} is null (not attached yet)
     * or {@code ops} is 0. Never throws: whatever the receiver throws goes to {@code failures}, and
     * if that throws too, both are logged.
     *
     * @param source   the handle the readiness belongs to, for the report
     * @param failures where a failure goes, as given by the engine
     */
    public static void deliver(IoReady receiver, int ops, Object source, Failures failures) {
        if (receiver == null || ops == 0) {
            return;
        }
        try {
            receiver.onReady(ops);
        } catch (Throwable t) { // everything: an exception escaping into the backend's poll breaks it
            failed(source, t, failures);
        }
    }

    private static void failed(Object source, Throwable failure, Failures failures) {
        try {
            failures.receiverFailed(source, failure);
        } catch (Throwable reporting) {
            // The loop's error path must not throw into the poll either: log both, and if even that
            // fails there is nowhere left to say it.
            try {
                failure.addSuppressed(reporting);
                LOGGED.receiverFailed(source, failure);
            } catch (Throwable ignored) {
                // nothing left
            }
        }
    }
}
