package dev.loop.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * This process's file descriptors, from /proc, for the suites' leak checks: counts are -1 where
 * /proc is missing (not Linux), and a check compares only when both counts are known.
 */
public final class Fds {
    private static final Path FD_DIR = Path.of("/proc/self/fd");
    private static final String EVENTFD_COUNT = "eventfd-count:";

    private Fds() {
    }

    /** Open descriptors right now. */
    public static long count() {
        if (!Files.isDirectory(FD_DIR)) {
            return -1;
        }
        try (Stream<Path> s = Files.list(FD_DIR)) {
            return s.count() - 1; // the directory stream itself
        } catch (IOException e) {
            return -1;
        }
    }

    /** The numbers of the eventfds open right now. */
    public static List<Integer> eventFds() throws IOException {
        List<Integer> out = new ArrayList<>();
        try (Stream<Path> s = Files.list(FD_DIR)) {
            for (Path p : (Iterable<Path>) s::iterator) {
                try {
                    if (Files.readSymbolicLink(p).toString().equals("anon_inode:[eventfd]")) {
                        out.add(Integer.parseInt(p.getFileName().toString()));
                    }
                } catch (IOException gone) {
                    // closed while listing (the listing's own descriptor, for one)
                }
            }
        }
        return out;
    }

    /**
     * The counter of an eventfd, as the kernel shows it. Netty never reads its wake-up eventfd, so
     * this is the number of wake-up writes since the loop opened.
     */
    public static long eventFdCount(int fd) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
            if (line.startsWith(EVENTFD_COUNT)) {
                return Long.parseLong(line.substring(EVENTFD_COUNT.length()).trim(), 16); // printed in hex
            }
        }
        throw new IOException("fd " + fd + " is not an eventfd");
    }

    /** The soft limit on open files, or -1 if /proc does not say. */
    public static long openFileLimit() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/limits"))) {
            if (line.startsWith("Max open files")) {
                String[] f = line.trim().split("\\s+");
                return f[3].equals("unlimited") ? Long.MAX_VALUE : Long.parseLong(f[3]);
            }
        }
        return -1;
    }
}
