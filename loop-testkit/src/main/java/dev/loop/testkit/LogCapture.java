package dev.loop.testkit;

import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what a {@code System.Logger} (backed by java.util.logging) writes, for assertions. */
public final class LogCapture extends Handler implements AutoCloseable {
    private final StringBuffer text = new StringBuffer();
    private final Logger logger;
    private final Level previous;

    private LogCapture(String name) {
        logger = Logger.getLogger(name);
        previous = logger.getLevel();
        logger.setLevel(Level.ALL);
        setLevel(Level.ALL);
        logger.addHandler(this);
    }

    public static LogCapture start(String loggerName) {
        return new LogCapture(loggerName);
    }

    public String text() {
        return text.toString();
    }

    @Override
    public void publish(LogRecord r) {
        text.append(r.getLevel()).append(' ').append(r.getMessage()).append('\n');
        if (r.getThrown() != null) {
            text.append(r.getThrown()).append('\n');
        }
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setLevel(previous);
    }
}
