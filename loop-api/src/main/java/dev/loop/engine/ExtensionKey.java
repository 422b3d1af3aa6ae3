package dev.loop.engine;

import java.util.Objects;

/**
 * Names one kind of per-loop state kept by a layer above the engine (see
 * {@link Engine#extension}). Compared by identity: each layer keeps its key in a constant.
 *
 * @param <T> the type of the state
 */
public final class ExtensionKey<T> {
    private final String name;

    /** @param name what the state is, for messages */
    public ExtensionKey(String name) {
        this.name = Objects.requireNonNull(name, "name");
    }

    @Override
    public String toString() {
        return name;
    }
}
