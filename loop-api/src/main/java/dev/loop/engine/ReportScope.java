package dev.loop.engine;

import dev.loop.log.LogContext;

/**
 * What the report being handled is about besides its source: the connection a failing handler
 * serves, say. It is held while the loop's exception handler runs, so that the default handler's
 * record names it also when a user's handler passes the report on. Loop thread only.
 */
final class ReportScope {
    private Object about;

    /** Runs {@code report} with {@code subject} as what it is about; nests, and restores the outer one. */
    void during(Object subject, Runnable report) {
        Object outer = about;
        about = subject;
        try {
            report.run();
        } finally {
            about = outer;
        }
    }

    /** Adds what the report being handled is about, if one is, to {@code context}. */
    void describe(LogContext context) {
        if (about != null) {
            context.about(about);
        }
    }
}
