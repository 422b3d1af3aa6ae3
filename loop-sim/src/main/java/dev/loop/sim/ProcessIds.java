package dev.loop.sim;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The ids a simulated host's Unix domain peers read as its credentials. Stateless. */
final class ProcessIds {
    private static final long SIMULATED_USER = 1000;

    private ProcessIds() {
    }

    /**
     * This JVM's process id and effective user and group ids: the shared network is this process,
     * so a Unix peer there reads what a kernel's {@code SO_PEERCRED} would. The ids come from the
     * owner of {@code /proc/self} (Linux); elsewhere they are unknown and read -1.
     */
    static long[] ofThisProcess() {
        long pid = ProcessHandle.current().pid();
        try {
            Path self = Path.of("/proc/self");
            long uid = ((Number) Files.getAttribute(self, "unix:uid")).longValue();
            long gid = ((Number) Files.getAttribute(self, "unix:gid")).longValue();
            return new long[] {pid, uid, gid};
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException | SecurityException e) {
            return new long[] {pid, -1, -1};
        }
    }

    /**
     * Fixed ids for the host added after {@code before} others (the host at 10.0.0.{@code before + 1}),
     * so that a run's output depends on its seed only: process id 1000 plus that host number.
     */
    static long[] simulated(int before) {
        return new long[] {SIMULATED_USER + before + 1, SIMULATED_USER, SIMULATED_USER};
    }
}
