package dev.loop.engine;

import dev.loop.log.LogContext;
import dev.loop.spi.Readiness;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * What the engine hands its backend's driver ({@code IoDriver.reportFailuresTo}): where a
 * receiver's failure goes, and how the backend writes its own records, with the loop's context in
 * front as every record of the loop has it. Loop thread, as the driver.
 */
final class DriverReports implements Readiness.Failures {
    private final BiConsumer<Object, Throwable> receiverFailed;
    private final Function<Object, LogContext> context;

    DriverReports(BiConsumer<Object, Throwable> receiverFailed, Function<Object, LogContext> context) {
        this.receiverFailed = receiverFailed;
        this.context = context;
    }

    @Override
    public void receiverFailed(Object source, Throwable failure) {
        receiverFailed.accept(source, failure);
    }

    @Override
    public void log(System.Logger logger, System.Logger.Level level, String message, Throwable error, Object about) {
        try {
            if (logger.isLoggable(level)) {
                logger.log(level, context.apply(about).line(message), error);
            }
        } catch (Throwable loggingFailed) {
            // a backend's record is never worth failing its caller (a close, a poll) for
        }
    }
}
