package dev.loop.conformance;

import dev.loop.Loop;
import dev.loop.Loops;
import dev.loop.Signals;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import sun.misc.Signal;

/**
 * A JVM of its own for {@link SignalsTest}'s {@code TERM} cases, whose end is the JVM's exit. Says
 * "ready" once its handlers are in place, then:
 * <ul>
 * <li>{@code await}: waits for TERM on the loop with {@link Signals#awaitTermination}, says which
 * signal on which thread, then raises TERM again, which the JVM's restored handler turns into the
 * shutdown hooks and exit status 143;</li>
 * <li>{@code closed}: adds a TERM handler to a loop and closes the loop without removing it; the
 * TERM the test then sends must still end the JVM.</li>
 * </ul>
 */
public final class SignalsChild {

    public static void main(String[] args) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("shutdown hook ran");
            System.out.flush();
        }));
        switch (args[0]) {
            case "await" -> {
                Thread.currentThread().setName("loop-main");
                try (Loop loop = Loops.open()) {
                    var term = Signals.awaitTermination(loop);
                    System.out.println("ready");
                    System.out.flush();
                    String which = loop.runUntilComplete(term);
                    System.out.println(which + " on " + Thread.currentThread().getName());
                    System.out.flush();
                }
                Signal.raise(new Signal("TERM"));
                Thread.sleep(10_000); // the JVM's handler exits; this line is never finished
                System.exit(3);
            }
            case "closed" -> {
                Loop loop = Loops.open();
                Signals.on(loop, "TERM", () -> System.out.println("the closed loop's handler ran"));
                loop.close();
                System.out.println("ready");
                System.out.flush();
                Thread.sleep(10_000);
                System.exit(3);
            }
            default -> throw new IllegalArgumentException(args[0]);
        }
    }

    /** Starts this class in a child JVM with the test's class path. */
    static Process start(String mode) throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd = new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"),
                SignalsChild.class.getName(), mode));
        return new ProcessBuilder(cmd).start();
    }

    /** The child's first line of output, read without buffering past it (the rest is read later). */
    static String readLine(Process child) throws IOException {
        InputStream in = child.getInputStream();
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            sb.append((char) c);
        }
        return sb.toString();
    }

    private SignalsChild() {
    }
}
