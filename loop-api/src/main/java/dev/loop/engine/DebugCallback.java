package dev.loop.engine;

/** Debug mode only: a callback that remembers where it was scheduled. */
final class DebugCallback implements Runnable {
    private final Runnable callback;
    private final Throwable site;

    private DebugCallback(Runnable callback) {
        this.callback = callback;
        this.site = new Throwable("scheduled here");
    }

    static Runnable wrap(Runnable r) {
        return r instanceof DebugCallback ? r : new DebugCallback(r);
    }

    /** "; scheduled at ..." for a wrapped callback, empty otherwise. */
    static String siteOf(Object r) {
        if (r instanceof EngineTimer t) {
            r = t.callback();
        }
        if (!(r instanceof DebugCallback d)) {
            return "";
        }
        StringBuilder sb = new StringBuilder("; scheduled at:");
        StackTraceElement[] trace = d.site.getStackTrace();
        for (int i = 0; i < Math.min(trace.length, 12); i++) {
            String frame = trace[i].toString();
            if (!frame.startsWith("dev.loop.engine.")) {
                sb.append("\n\tat ").append(frame);
            }
        }
        return sb.toString();
    }

    /** What {@code r} runs: a timer's or a debug wrapper's callback, else {@code r}; for a record's context. */
    static Object unwrap(Object r) {
        if (r instanceof EngineTimer t) {
            r = t.callback();
        }
        return r instanceof DebugCallback d ? d.callback : r;
    }

    @Override
    public void run() {
        callback.run();
    }

    @Override
    public String toString() {
        return callback.toString();
    }
}
