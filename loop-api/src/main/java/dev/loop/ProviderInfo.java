package dev.loop;

/**
 * One provider {@link Loops} found: an I/O backend or a timer strategy.
 *
 * @param name           what to select it by
 * @param kind           {@link #BACKEND} or {@link #TIMERS}
 * @param priority       higher wins among available ones when nothing is selected
 * @param available      whether it can be used on this machine
 * @param cause          why not, when unavailable (null otherwise)
 * @param implementation the provider's class name
 */
public record ProviderInfo(String name, String kind, int priority, boolean available, Throwable cause,
                           String implementation) {
    public static final String BACKEND = "backend";
    public static final String TIMERS = "timers";

    /** "select (backend, priority 10, available)" or "... unavailable: reason". */
    public String describe() {
        return name + " (" + kind + ", priority " + priority + ", "
                + (available ? "available" : "unavailable: " + reason()) + ")";
    }

    /** The unavailability cause in one line, or "" when available. */
    public String reason() {
        if (cause == null) {
            return "";
        }
        StringBuilder sb = new StringBuilder(String.valueOf(cause));
        for (Throwable c = cause.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
            sb.append(" <- ").append(c);
        }
        return sb.toString();
    }
}
