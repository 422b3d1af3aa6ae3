package dev.loop.testkit;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what a {@code System.Logger} (backed by java.util.logging) writes, for assertions. */
public final class LogCapture extends Handler implements AutoCloseable {
    private final StringBuffer text = new StringBuffer();
    private final List<Throwable> thrown = new CopyOnWriteArrayList<>();
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

    /** The exceptions logged with the records so far, in order (the same objects). */
    public List<Throwable> thrown() {
        return List.copyOf(thrown);
    }

    @Override
    public void publish(LogRecord r) {
        text.append(r.getLevel()).append(' ').append(r.getMessage()).append('\n');
        if (r.getThrown() != null) {
            text.append(r.getThrown()).append('\n');
            thrown.add(r.getThrown());
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
