package dev.loop.spi;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.Objects;

/**
 * The counts a backend keeps of its own work, typically its system calls ({@code select},
 * {@code epoll_wait}, {@code io_uring_enter}): a small set of named {@code long}s, fixed when the
 * driver is made. Written by the loop thread alone; read from any thread by the loop's metrics
 * snapshot. A driver that counts returns one from {@link IoDriver#counters()}.
 *
 * <p>Counting costs a plain store: each value is written with {@code setOpaque} (a plain store on
 * x86 and ARM) and read with {@code getOpaque}, so a reader sees whole values, each at most a
 * moment old, not all of one instant, as the loop's other metrics (docs/METRICS.md).
 */
public final class IoCounters {
    private static final VarHandle VALUE = MethodHandles.arrayElementVarHandle(long[].class);

    private final List<String> names;
    private final long[] values;

    /**
     * @param names the counters' names, in the order of their indexes; snake_case after the
     *              system call or the thing counted ({@code "epoll_wait"}), unique
     */
    public IoCounters(String... names) {
        this.names = List.of(names);
        if (this.names.stream().distinct().count() != names.length) {
            throw new IllegalArgumentException("counter names must be unique: " + this.names);
        }
        this.values = new long[names.length];
    }

    /** The names, in the order of their indexes. */
    public List<String> names() {
        return names;
    }

    /** Adds {@code n} to counter {@code i}. Loop thread only. */
    public void add(int i, long n) {
        VALUE.setOpaque(values, i, values[i] + n);
    }

    /** Adds one to counter {@code i}. Loop thread only. */
    public void increment(int i) {
        VALUE.setOpaque(values, i, values[i] + 1);
    }

    /** Counter {@code i}'s value. Any thread. */
    public long get(int i) {
        return (long) VALUE.getOpaque(values, i);
    }

    /** The counter named {@code name}. Any thread. */
    public long get(String name) {
        int i = names.indexOf(Objects.requireNonNull(name, "name"));
        if (i < 0) {
            throw new IllegalArgumentException("no counter named " + name + "; there are " + names);
        }
        return get(i);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("IoCounters[");
        for (int i = 0; i < values.length; i++) {
            b.append(i == 0 ? "" : ", ").append(names.get(i)).append('=').append(get(i));
        }
        return b.append(']').toString();
    }
}
