package dev.loop.bench.compare;

import java.io.BufferedReader;
import java.io.PrintStream;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicReference;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * One contender of a micro workload, kept alive in a JVM of its own and measured in turns:
 * {@code TurnWorker Class.method [param=value ...]} builds the JMH benchmark's {@link State}
 * objects (parameters set, trial {@link Setup} run), prints {@code READY}, then obeys commands on
 * standard input, one per line:
 *
 * <ul>
 *   <li>{@code RUN <ms>}: invoke the benchmark method (on {@link Threads} threads) until {@code ms}
 *       have passed, finishing the invocation under way, then wait until the JIT compiler is quiet
 *       and print {@code RESULT <operations> <nanoseconds>};
 *   <li>{@code QUIT} (or the end of input): run the trial {@link TearDown} and exit.
 * </ul>
 *
 * JMH's own runner cannot pause a fork between iterations while another fork measures, which is
 * what taking turns needs; the benchmark methods the comparison uses are coarse (one invocation
 * hands a batch of thousands of operations to another thread and waits for it), so the
 * per-invocation machinery JMH adds around fine-grained methods does not matter at this size.
 * Waiting for the JIT after each window keeps one contender's background compilation out of the
 * next contender's window. A failure prints {@code ERROR <why>} and exits with status 1.
 */
public final class TurnWorker {
    /** Longest wait for the JIT to go quiet after a window. */
    static final long JIT_QUIET_MAX_MS = 3_000;
    /** The JIT counts as quiet when its total compilation time has not moved for this long. */
    static final long JIT_QUIET_MS = 60;

    private final Object bench;
    private final Method method;
    private final int threads;
    private final long opsPerInvocation;
    private final Map<Class<?>, Object> shared = new LinkedHashMap<>();
    private final List<Object[]> argsPerThread = new ArrayList<>();
    private final List<Object> perThread = new ArrayList<>();

    TurnWorker(String benchmark, Map<String, String> params) throws ReflectiveOperationException {
        int dot = benchmark.lastIndexOf('.');
        if (dot < 0) {
            throw new IllegalArgumentException("expected Class.method, got " + benchmark);
        }
        String className = benchmark.substring(0, dot).contains(".") ? benchmark.substring(0, dot)
                : "dev.loop.bench." + benchmark.substring(0, dot);
        Class<?> type = Class.forName(className);
        Method found = null;
        for (Method m : type.getMethods()) {
            if (m.getName().equals(benchmark.substring(dot + 1))) {
                found = m;
            }
        }
        if (found == null) {
            throw new IllegalArgumentException("no method " + benchmark);
        }
        method = found;
        Threads t = method.getAnnotation(Threads.class);
        threads = t != null ? Math.max(1, t.value()) : 1;
        OperationsPerInvocation ops = method.getAnnotation(OperationsPerInvocation.class);
        opsPerInvocation = ops != null ? ops.value() : 1;
        Object bench = newInstance(type);
        Map<String, String> unused = new HashMap<>(params);
        for (int i = 0; i < threads; i++) {
            Class<?>[] kinds = method.getParameterTypes();
            Object[] args = new Object[kinds.length];
            for (int a = 0; a < kinds.length; a++) {
                Class<?> k = kinds[a];
                State s = k.getAnnotation(State.class);
                if (s == null) {
                    throw new IllegalArgumentException(benchmark + ": parameter " + k.getSimpleName() + " is not a @State");
                }
                if (s.value() == Scope.Thread) {
                    args[a] = create(k, params, unused);
                    perThread.add(args[a]);
                } else if (shared.containsKey(k)) {
                    args[a] = shared.get(k);
                } else {
                    args[a] = create(k, params, unused);
                    shared.put(k, args[a]);
                }
            }
            argsPerThread.add(args);
        }
        if (!unused.isEmpty()) {
            throw new IllegalArgumentException(benchmark + " has no parameter " + unused.keySet());
        }
        this.bench = bench;
    }

    private static Object newInstance(Class<?> k) throws ReflectiveOperationException {
        Constructor<?> c = k.getDeclaredConstructor();
        c.setAccessible(true);
        return c.newInstance();
    }

    /** A state object with its parameters set and its trial setup run (superclass first, as JMH does). */
    private static Object create(Class<?> k, Map<String, String> params, Map<String, String> unused)
            throws ReflectiveOperationException {
        Object o = newInstance(k);
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = k; c != null && c != Object.class; c = c.getSuperclass()) {
            chain.add(0, c);
        }
        for (Class<?> c : chain) {
            for (Field f : c.getDeclaredFields()) {
                Param p = f.getAnnotation(Param.class);
                if (p == null) {
                    continue;
                }
                String v = params.get(f.getName());
                if (v == null) {
                    if (p.value().length != 1) {
                        throw new IllegalArgumentException(k.getSimpleName() + "." + f.getName() + " needs a value");
                    }
                    v = p.value()[0];
                }
                unused.remove(f.getName());
                f.setAccessible(true);
                f.set(o, convert(f.getType(), v));
            }
        }
        for (Class<?> c : chain) {
            for (Method m : c.getDeclaredMethods()) {
                Setup s = m.getAnnotation(Setup.class);
                if (s != null && s.value() == Level.Trial) {
                    m.setAccessible(true);
                    m.invoke(o);
                }
            }
        }
        return o;
    }

    private static Object convert(Class<?> type, String v) {
        if (type == String.class) {
            return v;
        }
        if (type == int.class || type == Integer.class) {
            return Integer.parseInt(v);
        }
        if (type == long.class || type == Long.class) {
            return Long.parseLong(v);
        }
        if (type == boolean.class || type == Boolean.class) {
            return Boolean.parseBoolean(v);
        }
        throw new IllegalArgumentException("unsupported @Param type " + type);
    }

    private void tearDown() {
        List<Object> all = new ArrayList<>(perThread);
        all.addAll(shared.values());
        for (Object o : all) {
            List<Class<?>> chain = new ArrayList<>();
            for (Class<?> c = o.getClass(); c != null && c != Object.class; c = c.getSuperclass()) {
                chain.add(c); // subclass first: the reverse of setup
            }
            for (Class<?> c : chain) {
                for (Method m : c.getDeclaredMethods()) {
                    TearDown t = m.getAnnotation(TearDown.class);
                    if (t != null && t.value() == Level.Trial) {
                        try {
                            m.setAccessible(true);
                            m.invoke(o);
                        } catch (ReflectiveOperationException | RuntimeException e) {
                            System.err.println("teardown of " + c.getSimpleName() + " failed: " + e);
                        }
                    }
                }
            }
        }
    }

    /** Invokes the method on every thread until {@code nanos} have passed; {operations, nanoseconds}. */
    long[] window(long nanos) throws Exception {
        long[] invocations = new long[threads];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CyclicBarrier start = new CyclicBarrier(threads);
        long[] ends = new long[threads];
        long[] starts = new long[threads];
        List<Thread> workers = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int id = i;
            Runnable body = () -> {
                Object[] args = argsPerThread.get(id);
                try {
                    start.await();
                    long t0 = System.nanoTime();
                    starts[id] = t0;
                    long deadline = t0 + nanos;
                    long n = 0;
                    long now;
                    do {
                        method.invoke(bench, args);
                        n++;
                        now = System.nanoTime();
                    } while (now < deadline);
                    invocations[id] = n;
                    ends[id] = now;
                } catch (InvocationTargetException e) {
                    failure.compareAndSet(null, e.getCause());
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            };
            if (threads == 1) {
                body.run();
            } else {
                Thread w = new Thread(body, "turn-worker-" + i);
                workers.add(w);
                w.start();
            }
        }
        for (Thread w : workers) {
            w.join();
        }
        if (failure.get() != null) {
            Throwable f = failure.get();
            throw f instanceof Exception e ? e : new RuntimeException(f);
        }
        // JMH sums each thread's throughput; the same here, expressed over the longest thread's time
        double perSecond = 0;
        long longest = 0;
        for (int i = 0; i < threads; i++) {
            long t = ends[i] - starts[i];
            perSecond += invocations[i] * (double) opsPerInvocation / t * 1e9;
            longest = Math.max(longest, t);
        }
        return new long[] {Math.round(perSecond * longest / 1e9), longest};
    }

    /** The JIT's total compilation time so far in ms, or -1 where the JVM does not say. */
    static long compilationMillis() {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        return jit == null || !jit.isCompilationTimeMonitoringSupported() ? -1 : jit.getTotalCompilationTime();
    }

    /**
     * Waits until the JIT's total compilation time stops moving, at most {@link #JIT_QUIET_MAX_MS};
     * at once if it did not move during a window of at least {@link #JIT_QUIET_MS} that ended now.
     */
    static void awaitQuietJit(long atWindowStart, long windowMillis) throws InterruptedException {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        if (jit == null || !jit.isCompilationTimeMonitoringSupported()) {
            return;
        }
        long last = jit.getTotalCompilationTime();
        if (last == atWindowStart && windowMillis >= JIT_QUIET_MS) {
            return;
        }
        long deadline = System.nanoTime() + JIT_QUIET_MAX_MS * 1_000_000;
        long stableSince = System.nanoTime();
        while (System.nanoTime() < deadline) {
            Thread.sleep(10);
            long now = jit.getTotalCompilationTime();
            if (now != last) {
                last = now;
                stableSince = System.nanoTime();
            } else if (System.nanoTime() - stableSince >= JIT_QUIET_MS * 1_000_000) {
                return;
            }
        }
    }

    public static void main(String[] args) {
        PrintStream out = System.out;
        TurnWorker w;
        try {
            Map<String, String> params = new LinkedHashMap<>();
            for (int i = 1; i < args.length; i++) {
                int eq = args[i].indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("expected name=value, got " + args[i]);
                }
                params.put(args[i].substring(0, eq), args[i].substring(eq + 1));
            }
            if (args.length == 0) {
                throw new IllegalArgumentException("usage: TurnWorker Class.method [param=value ...]");
            }
            w = new TurnWorker(args[0], params);
        } catch (Throwable e) {
            Throwable c = e instanceof InvocationTargetException i && i.getCause() != null ? i.getCause() : e;
            out.println("ERROR " + String.valueOf(c).replace('\n', ' '));
            out.flush();
            System.exit(1);
            return;
        }
        out.println("READY");
        out.flush();
        int status = 0;
        try (BufferedReader in = Processes.reader(System.in)) {
            String line;
            while ((line = in.readLine()) != null) {
                String[] f = line.trim().split(" ");
                if (f[0].equals("RUN") && f.length == 2) {
                    long millis = Long.parseLong(f[1]);
                    long compiled = compilationMillis();
                    long[] r = w.window(millis * 1_000_000);
                    awaitQuietJit(compiled, millis);
                    out.printf(Locale.ROOT, "RESULT %d %d%n", r[0], r[1]);
                    out.flush();
                } else if (f[0].equals("QUIT")) {
                    break;
                } else {
                    out.println("ERROR unknown command: " + line);
                    out.flush();
                }
            }
        } catch (Throwable e) {
            out.println("ERROR " + String.valueOf(e).replace('\n', ' '));
            out.flush();
            status = 1;
        }
        w.tearDown();
        System.exit(status);
    }
}
