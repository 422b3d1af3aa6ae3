package dev.loop.examples.io;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The command line of a server example: {@code --name value} options and {@code --flag}s, each
 * checked against the names the server knows, so a typo is an error rather than a default.
 */
public final class ServerArgs {
    private final String command;
    private final Map<String, String> values = new HashMap<>();
    private final Set<String> flags = new HashSet<>();

    /**
     * @param command     the example's name, for messages
     * @param args        the arguments after the name
     * @param valueNames  options that take a value, e.g. {@code --port}
     * @param flagNames   options that take none
     * @throws IllegalArgumentException naming the argument that is unknown or lacks its value
     */
    public ServerArgs(String command, String[] args, List<String> valueNames, List<String> flagNames) {
        this.command = command;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (valueNames.contains(a)) {
                if (i + 1 >= args.length) {
                    throw new IllegalArgumentException(command + ": " + a + " needs a value");
                }
                values.put(a, args[++i]);
            } else if (flagNames.contains(a)) {
                flags.add(a);
            } else {
                throw new IllegalArgumentException(command + ": unknown argument '" + a + "'; options: "
                        + String.join(" ", valueNames) + " " + String.join(" ", flagNames));
            }
        }
    }

    public String string(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** The option as an int in [min, max], or {@code fallback} when absent. */
    public int integer(String name, int fallback, int min, int max) {
        String v = values.get(name);
        if (v == null) {
            return fallback;
        }
        int n;
        try {
            n = Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(command + ": " + name + " takes a whole number, not '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalArgumentException(command + ": " + name + " must be in [" + min + ", " + max + "]: " + n);
        }
        return n;
    }

    public boolean flag(String name) {
        return flags.contains(name);
    }
}
