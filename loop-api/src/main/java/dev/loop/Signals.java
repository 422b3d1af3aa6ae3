package dev.loop;

import dev.loop.engine.Engine;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import sun.misc.Signal;
import sun.misc.SignalHandler;

/**
 * POSIX signals delivered to loops (asyncio's {@code add_signal_handler}): a handler runs on its
 * loop's thread, never on the JVM's signal thread, so it may touch the loop's sockets and tasks
 * like any callback. Thread-safe.
 *
 * <pre>{@code
 * SignalHandle h = Signals.on(loop, "HUP", () -> reloadConfig());
 * ...
 * h.remove();
 *
 * // serve until Ctrl-C or SIGTERM, then close gracefully:
 * String why = loop.runUntilComplete(Signals.awaitTermination(loop));
 * server.close();
 * }</pre>
 *
 * <p><b>Which signals.</b> {@code TERM}, {@code INT}, {@code HUP}, {@code USR1} and {@code USR2}
 * (with or without the {@code SIG} prefix). What the JVM (HotSpot on Linux, JDK 17 and 25, checked
 * by raising each) does with the others: it refuses {@code QUIT} (its thread dump, Ctrl-\),
 * {@code KILL} and {@code STOP} (no process can catch them), {@code SEGV}, {@code FPE} and
 * {@code ILL} (its own faults); started with {@code -Xrs} it refuses {@code TERM}, {@code INT} and
 * {@code HUP} as well, and then nothing here can catch them. {@code USR2} is accepted, but HotSpot
 * uses it on Linux to suspend threads for sampling (its {@code SR_signum}, movable with the
 * environment variable {@code _JAVA_SR_SIGNUM}): while a {@code USR2} handler is installed, JFR's
 * thread sampling and profilers that suspend threads do not work; prefer {@code USR1}. Other names
 * are refused here rather than passed on, since the JVM or the C library relies on most of them
 * ({@code PIPE}, {@code CHLD}, {@code BUS}). A refusal is an {@link IllegalArgumentException}
 * naming the signal and why.
 *
 * <p><b>Sharing.</b> Signals are process-wide: any number of loops may each register any number of
 * handlers for one signal, and each delivery runs all of them, each on its own loop, in the order
 * they were added. The JVM's own handler is replaced while at least one handler of ours is
 * installed and put back when the last one is removed, so a {@code TERM} or {@code INT} after
 * that runs the shutdown hooks and exits as before. A loop closed with handlers still added loses
 * them at the next delivery, which then goes to the JVM's handler if no other loop took it.
 *
 * <p>Signals are not queued: several arriving before the JVM's signal thread runs may be delivered
 * once. A handler that throws goes to its loop's exception handler, as any callback's error does.
 */
public final class Signals {
    /** The names handlers may be added for, as the JVM spells them. */
    private static final List<String> SUPPORTED = List.of("TERM", "INT", "HUP", "USR1", "USR2");

    private static final Object LOCK = new Object();
    /** Guarded by LOCK: per signal, its handlers and what the JVM had installed before the first. */
    private static final Map<String, Installed> INSTALLED = new HashMap<>();

    private Signals() {
    }

    /** A handler added with {@link #on}: remove it once it is no longer wanted. */
    public interface SignalHandle {
        /** The signal's name without the {@code SIG} prefix ({@code "TERM"}). */
        String signal();

        /**
         * Removes the handler; the JVM's previous handler comes back when it was the signal's last.
         * Any thread; idempotent. A delivery already handed to the loop may still run it once.
         */
        void remove();
    }

    /**
     * Runs {@code handler} on {@code loop}'s thread each time the process receives {@code signal}.
     *
     * @param signal {@code "TERM"}, {@code "INT"}, {@code "HUP"}, {@code "USR1"} or {@code "USR2"},
     *               with or without {@code "SIG"} before it
     * @throws IllegalArgumentException naming the signal and why, for a signal not supported here or
     *                                  one the JVM refuses (all of them under {@code -Xrs})
     * @throws java.util.concurrent.RejectedExecutionException if the loop is closed
     */
    public static SignalHandle on(Loop loop, String signal, Runnable handler) {
        java.util.Objects.requireNonNull(loop, "loop");
        java.util.Objects.requireNonNull(handler, "handler");
        String name = normalize(signal);
        Engine engine = Engine.of(loop);
        if (engine.isClosed() || engine.isClosing()) {
            throw new RejectedExecutionException("Signals.on(" + name + ") on a closed loop: " + loop);
        }
        Registration r = new Registration(name, loop, handler);
        synchronized (LOCK) {
            Installed in = INSTALLED.get(name);
            if (in == null) {
                in = install(name);
                INSTALLED.put(name, in);
                if (in.previous == SignalHandler.SIG_IGN) {
                    warnIgnored(engine, name);
                }
            }
            in.handlers.add(r);
        }
        return r;
    }

    /**
     * A future that completes with the name of the first {@code TERM} or {@code INT} the process
     * receives ({@code "TERM"} or {@code "INT"}), for "serve until Ctrl-C or SIGTERM, then close
     * gracefully": {@code loop.runUntilComplete(Signals.awaitTermination(loop))}, or
     * {@code Async.await} in a task. Both handlers are removed as soon as it completes (or is
     * cancelled), so a second Ctrl-C during a slow shutdown stops the JVM the ordinary way.
     *
     * @throws IllegalArgumentException if the JVM refuses {@code TERM} or {@code INT} ({@code -Xrs})
     */
    public static LoopFuture<String> awaitTermination(Loop loop) {
        Promise<String> p = loop.newPromise();
        SignalHandle[] handles = new SignalHandle[2];
        // removed the moment one fires, before the future's callbacks run: a second signal during
        // the shutdown that follows already reaches the JVM's handler
        Runnable removeBoth = () -> {
            for (SignalHandle h : handles) {
                if (h != null) {
                    h.remove();
                }
            }
        };
        handles[0] = on(loop, "TERM", () -> {
            removeBoth.run();
            p.tryComplete("TERM");
        });
        try {
            handles[1] = on(loop, "INT", () -> {
                removeBoth.run();
                p.tryComplete("INT");
            });
        } catch (RuntimeException e) {
            removeBoth.run();
            throw e;
        }
        p.onDone(f -> removeBoth.run()); // cancelled
        return p;
    }

    /** The signal names this class accepts, as the JVM spells them. */
    public static List<String> supported() {
        return SUPPORTED;
    }

    private static String normalize(String signal) {
        java.util.Objects.requireNonNull(signal, "signal");
        String name = signal.startsWith("SIG") ? signal.substring(3) : signal;
        if (SUPPORTED.contains(name)) {
            return name;
        }
        String why = switch (name) {
            case "QUIT" -> "the JVM reserves it for its thread dump (Ctrl-\\, jstack)";
            case "KILL", "STOP" -> "no process can catch it";
            case "SEGV", "FPE", "ILL", "BUS" -> "the JVM handles its own faults with it";
            case "PIPE", "CHLD", "ALRM" -> "the JVM or the C library relies on its current disposition";
            default -> "it is not one of " + SUPPORTED;
        };
        throw new IllegalArgumentException("signal SIG" + name + " cannot be handled on a loop: " + why);
    }

    /**
     * The process started with {@code name} ignored (a shell starts its background jobs with
     * {@code INT} ignored; {@code nohup} ignores {@code HUP}), and the JVM then keeps it ignored
     * rather than install a handler: nothing registered for it will run. Said once per signal
     * installed, as the registration itself cannot fail for it without failing the program's start.
     */
    private static void warnIgnored(Engine engine, String name) {
        System.Logger log = System.getLogger("dev.loop");
        if (log.isLoggable(System.Logger.Level.WARNING)) {
            log.log(System.Logger.Level.WARNING, engine.logContext(null).line("SIG" + name
                    + " is ignored by this process (it was started with SIG" + name + " ignored, as a shell"
                    + " starts a background job): the JVM will not deliver it, so handlers for it do not run"));
        }
    }

    /** Installs our dispatcher for {@code name}, keeping the JVM's handler to restore. Under LOCK. */
    private static Installed install(String name) {
        Signal sig = new Signal(name);
        Installed in = new Installed(sig);
        try {
            in.previous = Signal.handle(sig, in);
        } catch (IllegalArgumentException refused) {
            throw new IllegalArgumentException("signal SIG" + name + " cannot be handled on a loop: the JVM refused it ("
                    + refused.getMessage() + "; a JVM started with -Xrs keeps TERM, INT and HUP to itself)", refused);
        }
        return in;
    }

    private static void remove(Registration r) {
        synchronized (LOCK) {
            Installed in = INSTALLED.get(r.signal);
            if (in == null || !in.handlers.remove(r)) {
                return;
            }
            if (in.handlers.isEmpty()) {
                INSTALLED.remove(r.signal);
                Signal.handle(in.signal, in.previous);
            }
        }
    }

    /** One signal's handlers, and the JVM's dispatcher for it. */
    private static final class Installed implements SignalHandler {
        final Signal signal;
        final List<Registration> handlers = new ArrayList<>(); // guarded by LOCK
        SignalHandler previous;

        Installed(Signal signal) {
            this.signal = signal;
        }

        /**
         * On the JVM's signal thread: hands the signal to every loop, never runs a handler here. A
         * loop closed without removing its handlers can take no more: its handlers are dropped, and
         * if none was left to take this signal, the JVM's handler is restored and the signal raised
         * again, so a TERM is never swallowed by handlers nobody can run.
         */
        @Override
        public void handle(Signal s) {
            Registration[] now;
            synchronized (LOCK) {
                now = handlers.toArray(new Registration[0]);
            }
            boolean delivered = false;
            for (Registration r : now) {
                try {
                    r.loop.callSoon(r);
                    delivered = true;
                } catch (RejectedExecutionException closed) {
                    r.remove();
                }
            }
            if (!delivered) {
                boolean restored;
                synchronized (LOCK) {
                    restored = INSTALLED.get(signal.getName()) != this;
                }
                if (restored) {
                    Signal.raise(s);
                }
            }
        }
    }

    /** One handler on one loop; also the callback that runs it there. */
    private static final class Registration implements SignalHandle, Runnable {
        final String signal;
        final Loop loop;
        final Runnable handler;
        volatile boolean removed;

        Registration(String signal, Loop loop, Runnable handler) {
            this.signal = signal;
            this.loop = loop;
            this.handler = handler;
        }

        @Override
        public String signal() {
            return signal;
        }

        @Override
        public void remove() {
            removed = true;
            Signals.remove(this);
        }

        @Override
        public void run() {
            if (!removed) {
                handler.run();
            }
        }

        @Override
        public String toString() {
            return "SIG" + signal + " handler on " + loop;
        }
    }
}
