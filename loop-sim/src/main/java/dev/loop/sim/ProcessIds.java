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

    /** Fixed ids for the {@code n}th host of a simulation, so that a run's output depends on its seed only. */
    static long[] simulated(int n) {
        return new long[] {SIMULATED_USER + n, SIMULATED_USER, SIMULATED_USER};
    }
}
