package dev.loop;

/** Rethrows a checked exception without declaring it: the same object reaches the caller. */
final class Sneaky {
    private Sneaky() {
    }

    @SuppressWarnings("unchecked")
    static <E extends Throwable> E rethrow(Throwable t) throws E {
        throw (E) t;
    }
}
