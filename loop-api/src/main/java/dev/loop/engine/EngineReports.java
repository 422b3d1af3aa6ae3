package dev.loop.engine;

import dev.loop.log.LogContext;

/**
 * The engine's error path: where an error nobody else can receive goes (the loop's exception
 * handler, else the log, else a count and a fixed line on standard error), and the context every
 * record of the loop carries. Nothing here throws, so the error path cannot be what kills the loop.
 * Any thread: what the report being handled is about is held and read only where the loop's state
 * is the calling thread's ({@link #ownedHere()}).
 */
final class EngineReports {
    private final Engine engine;
    private final String loopName;
    private final EngineLog log;
    /**
     * What the report being handled is about besides its source (the connection a failing handler
     * serves, say), held while the exception handler runs so that the default handler's record
     * names it also when a user's handler passes the report on. Null outside such a report.
     * Loop thread (or its owner's, see {@link #ownedHere()}).
     */
    private Object reportAbout;

    EngineReports(Engine engine, String loopName) {
        this.engine = engine;
        this.loopName = loopName;
        this.log = new EngineLog(loopName, this::logContext);
    }

    /** Where the engine's parts (the callback runner) write their own records. */
    EngineLog log() {
        return log;
    }

    /** What the backend's driver is handed: where a receiver's failure goes, and its records' context. */
    DriverReports forDriver() {
        return new DriverReports(this::receiverFailed, this::logContext);
    }

    /**
     * Hands an error nobody else can receive to the loop's exception handler ({@link Engine#handle}).
     * Never throws: a handler that fails is logged with what it was handling added to its failure
     * as suppressed; if logging fails too, the report is counted ({@link #failed()}) and a fixed
     * line goes to standard error.
     */
    void report(String message, Throwable error, Object source) {
        try {
            engine.handle(message, error, source);
        } catch (Throwable handlerFailed) {
            log.handlerFailed(message, error, handlerFailed, source);
        }
    }

    /**
     * As {@link #report(String, Throwable, Object)}, for a report whose source (the handler a user
     * gave, say) is not what it is about ({@code about}: the connection that handler serves). On the
     * loop's thread (or its owner's, while it is not running), while the handler runs, the default
     * handler's record names {@code about} in its context too ({@link #logContext}), also when a
     * user's handler passes the report on to it.
     */
    void report(String message, Throwable error, Object source, Object about) {
        if (!ownedHere()) {
            report(message, error, source);
            return;
        }
        Object outer = reportAbout; // reports nest (a handler that reports): restore the outer one
        reportAbout = about;
        try {
            report(message, error, source);
        } finally {
            reportAbout = outer;
        }
    }

    /**
     * A readiness receiver threw inside the poll (see {@code Readiness.deliver}). The exception
     * handler is user code, which runs only in the callback phase, so the report is queued as a
     * callback; if even that fails (the loop is closed), the driver logs it.
     */
    private void receiverFailed(Object source, Throwable failure) {
        String message = "readiness receiver of " + EngineLog.describe(source) + " failed";
        engine.callSoon(() -> report(message, failure, source));
    }

    /**
     * What the default exception handler does: log on the {@code dev.loop} logger, at ERROR with its
     * stack trace when there is an exception, at WARNING when there is none (a report that carries
     * no exception is a summary, such as how many peers failed their handshakes, which says all
     * there is to say in one line). Never throws.
     */
    void logDefault(String message, Throwable error, Object source) {
        if (error == null) {
            log.warning(message, source);
        } else {
            log.error(message, error, source);
        }
    }

    /**
     * The context for a record about {@code about} (may be null) written now: the loop's name, what
     * {@code about} and the report being handled are about, and what the layer above adds
     * ({@link Engine#describeCurrent}: the running task). Builds it: call once the level is enabled.
     */
    LogContext logContext(Object about) {
        LogContext c = LogContext.of(loopName);
        if (ownedHere() && reportAbout != null) {
            c.about(reportAbout); // first: what the report is about, the source its reporter
        }
        c.about(DebugCallback.unwrap(about));
        engine.describeCurrent(c);
        return c;
    }

    /**
     * On the loop thread, or on its owner's thread while no thread runs it (a server closed after
     * the loop stopped): where the loop's state is this thread's to read and write.
     */
    private boolean ownedHere() {
        Thread o = engine.owner();
        return o == null || o == Thread.currentThread();
    }

    /** Reports that could be neither handled nor logged (each also printed a fixed line on standard error). */
    long failed() {
        return log.failed();
    }
}
