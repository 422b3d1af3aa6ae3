package dev.loop.engine;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The per-loop state that layers above the engine keep ({@link Engine#extension}), and the hooks
 * they want run when the loop closes. Not thread-safe: the loop thread, or any thread while the
 * loop is not running.
 */
final class Extensions {
    private final Map<ExtensionKey<?>, Object> values = new IdentityHashMap<>();
    private final List<Runnable> closeHooks = new ArrayList<>();

    @SuppressWarnings("unchecked")
    <T> T get(Engine engine, ExtensionKey<T> key, Function<Engine, T> create) {
        Object e = values.get(key);
        if (e == null) {
            e = Objects.requireNonNull(create.apply(engine), "extension " + key);
            values.put(key, e);
        }
        return (T) e;
    }

    void addCloseHook(Runnable hook) {
        closeHooks.add(Objects.requireNonNull(hook, "hook"));
    }

    List<Runnable> closeHooks() {
        return closeHooks;
    }
}
