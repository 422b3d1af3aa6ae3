package dev.loop;

import dev.loop.spi.IoDriver;
import dev.loop.spi.BackendProvider;
import dev.loop.spi.TimerQueue;
import dev.loop.spi.TimerQueueProvider;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Opens loops and is the one place that finds backends and timer strategies.
 *
 * <p>Selection, for the backend and for the timers alike: the name in {@link LoopOptions}; else the
 * system property ({@value #BACKEND_PROPERTY}, {@value #TIMERS_PROPERTY}); else the environment
 * variable ({@value #BACKEND_ENV}, {@value #TIMERS_ENV}); else the available provider with the
 * highest priority. Providers come from {@link ServiceLoader}; one that fails to load is listed as
 * unavailable with its error and never stops the others. An unknown or unavailable name is an
 * {@link IllegalArgumentException} whose message lists every provider and why each unavailable one
 * is.
 */
public final class Loops {
    public static final String BACKEND_PROPERTY = "loop.backend";
    public static final String TIMERS_PROPERTY = "loop.timers";
    public static final String BACKEND_ENV = "LOOP_BACKEND";
    public static final String TIMERS_ENV = "LOOP_TIMERS";

    private static final System.Logger LOG = System.getLogger("dev.loop.Loops");
    /** A ServiceLoader iterator may keep failing on a broken entry; stop looking after this many. */
    private static final int MAX_PROVIDER_ERRORS = 32;
    /**
     * The backend choices by priority already announced at INFO: once per process per choice, so a
     * loop group of many loops, or a program opening loops over and over, says it once.
     */
    private static final Set<String> ANNOUNCED = ConcurrentHashMap.newKeySet();

    private Loops() {
    }

    /** A loop on the best available backend with the default timers. */
    public static Loop open() {
        return open(LoopOptions.defaults());
    }

    public static Loop open(LoopOptions options) {
        Registry r = Registry.INSTANCE;
        Found<BackendProvider> backend = select(ProviderInfo.BACKEND, options.backend(), BACKEND_PROPERTY, BACKEND_ENV,
                r.backends, r.all());
        Found<TimerQueueProvider> timers = select(ProviderInfo.TIMERS, options.timers(), TIMERS_PROPERTY, TIMERS_ENV,
                r.timers, r.all());
        TimerQueue queue = timers.provider.newTimerQueue();
        IoDriver io;
        try {
            io = backend.provider.newDriver();
        } catch (Exception | LinkageError e) {
            throw new IllegalStateException("backend " + backend.info.name() + " failed to open: " + e, e);
        }
        DefaultLoop loop = new DefaultLoop(io, backend.info.name(), queue, timers.info.name(), options);
        if (backend.byPriority) {
            String choice = "backend " + backend.info.name() + " chosen by priority, as no backend was named "
                    + "(LoopOptions.withBackend, -D" + BACKEND_PROPERTY + ", $" + BACKEND_ENV + "): " + backend.why;
            if (ANNOUNCED.add(choice) && LOG.isLoggable(System.Logger.Level.INFO)) {
                // Said once: with the native jars missing, the loop would otherwise fall back in silence.
                // Named after the first loop that chose it, the one to look for in the records after it.
                LOG.log(System.Logger.Level.INFO, loop.logContext(null).line(choice));
            }
        }
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, loop.logContext(null).line("opened on backend " + backend.info.name()
                    + " (" + backend.why + ") with timers " + timers.info.name() + " (" + timers.why + ")"));
        }
        return loop;
    }

    /** Every backend and timer strategy found on the class path, available or not. */
    public static List<ProviderInfo> providers() {
        return Registry.INSTANCE.all();
    }

    private record Candidate<P>(P provider, ProviderInfo info) { }

    /** The provider chosen, why, and whether by priority (no name given). */
    private record Found<P>(P provider, ProviderInfo info, String why, boolean byPriority) { }

    /** Lets a test see the announcement of a choice again, as a fresh process would. */
    static void forgetAnnouncedChoices() {
        ANNOUNCED.clear();
    }

    private static <P> Found<P> select(String kind, String explicit, String property, String env,
                                       List<Candidate<P>> candidates, List<ProviderInfo> all) {
        String name = explicit;
        String source = "LoopOptions";
        if (isBlank(name)) {
            name = System.getProperty(property);
            source = "-D" + property;
        }
        if (isBlank(name)) {
            name = System.getenv(env);
            source = "$" + env;
        }
        if (!isBlank(name)) {
            String wanted = name.trim().toLowerCase(Locale.ROOT);
            for (Candidate<P> c : candidates) {
                if (c.info.name().equals(wanted)) {
                    if (!c.info.available()) {
                        throw new IllegalArgumentException(kind + " '" + wanted + "' (from " + source
                                + ") is unavailable: " + c.info.reason() + "; " + listing(all), c.info.cause());
                    }
                    return new Found<>(c.provider, c.info, "selected by " + source, false);
                }
            }
            throw new IllegalArgumentException("unknown " + kind + " '" + wanted + "' (from " + source + "); "
                    + listing(all));
        }
        List<Candidate<P>> usable = candidates.stream().filter(c -> c.info.available()).toList();
        if (usable.isEmpty()) {
            throw new IllegalStateException("no " + kind + " is available; " + listing(all));
        }
        Candidate<P> best = usable.get(0); // candidates are sorted by priority, highest first
        String others = candidates.stream().filter(c -> c != best)
                .map(c -> c.info.name() + (c.info.available()
                        ? " ranked lower (priority " + c.info.priority() + ", chosen " + best.info.priority() + ")"
                        : " unavailable: " + c.info.reason()))
                .collect(Collectors.joining(", "));
        return new Found<>(best.provider, best.info,
                "highest priority available" + (others.isEmpty() ? "" : "; others: " + others), true);
    }

    private static String listing(List<ProviderInfo> all) {
        if (all.isEmpty()) {
            return "no providers were found on the class path (is a backend module such as loop-select there?)";
        }
        return "providers found: " + all.stream().map(ProviderInfo::describe).collect(Collectors.joining(", "));
    }

    private static boolean isBlank(String s) {
        return s == null || s.isBlank();
    }

    /** Discovery runs once per class loader, on first use (as SLF4J binds once). */
    private static final class Registry {
        static final Registry INSTANCE = new Registry();

        final List<Candidate<BackendProvider>> backends;
        final List<Candidate<TimerQueueProvider>> timers;

        private Registry() {
            backends = load(BackendProvider.class, ProviderInfo.BACKEND, BackendProvider::name, BackendProvider::priority,
                    BackendProvider::unavailabilityCause);
            timers = load(TimerQueueProvider.class, ProviderInfo.TIMERS, TimerQueueProvider::name,
                    TimerQueueProvider::priority, TimerQueueProvider::unavailabilityCause);
        }

        List<ProviderInfo> all() {
            List<ProviderInfo> all = new ArrayList<>();
            backends.forEach(c -> all.add(c.info));
            timers.forEach(c -> all.add(c.info));
            return all;
        }

        private static <P> List<Candidate<P>> load(Class<P> type, String kind, Function<P, String> name,
                                                   Function<P, Integer> priority, Function<P, Throwable> cause) {
            List<Candidate<P>> out = new ArrayList<>();
            Iterator<P> it = ServiceLoader.load(type, Loops.class.getClassLoader()).iterator();
            int errors = 0;
            while (errors < MAX_PROVIDER_ERRORS) {
                P p;
                try {
                    if (!it.hasNext()) {
                        break;
                    }
                    p = it.next();
                } catch (ServiceConfigurationError | LinkageError e) {
                    // One broken provider (missing class, failing constructor) is reported, not fatal.
                    errors++;
                    out.add(new Candidate<>(null, new ProviderInfo("<failed to load>", kind, Integer.MIN_VALUE, false, e,
                            type.getName())));
                    continue;
                }
                try {
                    Throwable why = cause.apply(p);
                    out.add(new Candidate<>(p, new ProviderInfo(name.apply(p).toLowerCase(Locale.ROOT), kind,
                            priority.apply(p), why == null, why, p.getClass().getName())));
                } catch (RuntimeException | LinkageError e) {
                    out.add(new Candidate<>(null, new ProviderInfo(p.getClass().getName(), kind, Integer.MIN_VALUE, false, e,
                            p.getClass().getName())));
                }
            }
            out.sort(Comparator.comparingInt((Candidate<P> c) -> c.info.priority()).reversed());
            return List.copyOf(out);
        }
    }
}
