package dev.loop;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * Tasks on {@code jdk.internal.vm.Continuation}, reached through method handles resolved once, so
 * compiling needs no flag and a JVM without the export simply reports it unavailable. A switch is a
 * {@code run()} on the loop thread and a {@code yield} back: no other thread is involved.
 *
 * <p>Not thread-safe: used by one loop's thread.
 */
final class ContinuationMechanism extends TaskMechanism {
    static final boolean AVAILABLE;
    static final String UNAVAILABLE_REASON;

    private static final Object SCOPE;
    private static final MethodHandle NEW;    // (Object scope, Runnable) Object
    private static final MethodHandle RUN;    // (Object continuation) void
    private static final MethodHandle YIELD;  // (Object scope) boolean

    static {
        Object scope = null;
        MethodHandle create = null;
        MethodHandle run = null;
        MethodHandle yield = null;
        String reason = null;
        try {
            // Checking the export first gives a precise reason instead of an access error later.
            if (!Object.class.getModule().isExported("jdk.internal.vm", ContinuationMechanism.class.getModule())) {
                throw new IllegalAccessException("java.base does not export jdk.internal.vm to "
                        + ContinuationMechanism.class.getModule());
            }
            Class<?> scopeClass = Class.forName("jdk.internal.vm.ContinuationScope");
            Class<?> contClass = Class.forName("jdk.internal.vm.Continuation");
            MethodHandles.Lookup l = MethodHandles.lookup(); // publicLookup only sees unconditional exports
            MethodHandle newScope = l.findConstructor(scopeClass, MethodType.methodType(void.class, String.class));
            // Erase the internal types to Object so call sites never name them.
            create = l.findConstructor(contClass, MethodType.methodType(void.class, scopeClass, Runnable.class))
                    .asType(MethodType.methodType(Object.class, Object.class, Runnable.class));
            run = l.findVirtual(contClass, "run", MethodType.methodType(void.class))
                    .asType(MethodType.methodType(void.class, Object.class));
            yield = l.findStatic(contClass, "yield", MethodType.methodType(boolean.class, scopeClass))
                    .asType(MethodType.methodType(boolean.class, Object.class));
            scope = newScope.invoke("dev.loop.tasks");
            // A VM without continuation support fails only when one runs: probe with an empty one.
            Object probe = (Object) create.invokeExact(scope, (Runnable) () -> { });
            run.invokeExact(probe);
        } catch (Throwable t) {
            reason = t.toString();
            scope = null;
            create = run = yield = null;
        }
        SCOPE = scope;
        NEW = create;
        RUN = run;
        YIELD = yield;
        AVAILABLE = reason == null;
        UNAVAILABLE_REASON = reason;
    }

    @Override
    String name() {
        return CONTINUATION;
    }

    @Override
    void start(LoopTask<?> task) {
        try {
            task.strand((Object) NEW.invokeExact(SCOPE, task.bodyRunner()));
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(t);
        }
    }

    @Override
    void resume(LoopTask<?> task) {
        try {
            RUN.invokeExact(task.strand());
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(t);
        }
    }

    @Override
    void suspend(LoopTask<?> task) {
        boolean yielded;
        try {
            yielded = (boolean) YIELD.invokeExact(SCOPE);
        } catch (IllegalStateException e) {
            String m = String.valueOf(e.getMessage());
            if (m.startsWith("Pinned")) {
                throw pinned(m.substring(m.indexOf(':') + 1).trim(), e);
            }
            throw e;
        } catch (Throwable t) {
            throw Sneaky.<RuntimeException>rethrow(t);
        }
        if (!yielded) {
            throw pinned("the continuation refused to yield", null);
        }
    }

    @Override
    void finished(LoopTask<?> task) {
        task.strand(null);
    }
}
