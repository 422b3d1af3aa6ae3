package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** An external load generator run once per window, with a shell script standing in for wrk. */
class CommandLoadTest {

    /** Prints "requests N" like a report; the command gets the port and the window's length. */
    static final class Fake extends CommandLoad {
        final List<List<String>> commands = new ArrayList<>();
        final String script;

        Fake(Path log, String script) {
            super(false, log);
            this.script = script;
        }

        @Override
        protected List<String> command(ServerLoad.Endpoint server, Duration length) {
            List<String> c = List.of("sh", "-c", script, "fake", Integer.toString(server.port()),
                    Long.toString(length.toMillis()));
            commands.add(c);
            return c;
        }

        @Override
        protected ServerLoad.Window parse(String output, double seconds) throws IOException {
            for (String line : output.split("\n")) {
                if (line.startsWith("requests ")) {
                    return new ServerLoad.Window(Long.parseLong(line.substring(9).trim()), 0, seconds, Double.NaN,
                            Double.NaN, Double.NaN);
                }
            }
            throw new IOException("no report in: " + output);
        }
    }

    static final ServerLoad.Endpoint SERVER = new ServerLoad.Endpoint() {
        @Override
        public String host() {
            return "127.0.0.1";
        }

        @Override
        public int port() {
            return 8080;
        }

        @Override
        public List<Long> pids() {
            return List.of(ProcessHandle.current().pid());
        }
    };

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void runsTheProgramBetweenTheMeterCallsAndParsesItsReport(@TempDir Path dir) throws Exception {
        Fake load = new Fake(dir.resolve("load.log"), "echo \"requests $(( $1 + $2 ))\"");
        List<String> events = new ArrayList<>();
        ServerLoad.Meter meter = new ServerLoad.Meter() {
            @Override
            public void begin() {
                events.add("begin");
            }

            @Override
            public void end() {
                events.add("end");
            }
        };
        ServerLoad.Window w = load.run(SERVER, Duration.ofMillis(20), Duration.ofMillis(300), false, meter);
        assertEquals(8080 + 300, w.operations());
        assertTrue(w.seconds() > 0);
        assertEquals(List.of("begin", "end"), events);
        assertEquals(2, load.commands.size()); // a settling run, then the measured one
        assertEquals("20", load.commands.get(0).get(5));

        load.commands.clear();
        load.run(SERVER, Duration.ofMillis(20), Duration.ofMillis(300), true, meter);
        assertEquals(1, load.commands.size()); // a burst: the measured run alone
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aFailingProgramIsReportedWithItsStatusAndLog(@TempDir Path dir) {
        Fake load = new Fake(dir.resolve("load.log"), "echo 'connection refused' >&2; exit 7");
        IOException e = assertThrows(IOException.class,
                () -> load.run(SERVER, Duration.ZERO, Duration.ofMillis(10), true, ServerLoad.Meter.NONE));
        assertTrue(e.getMessage().contains("status 7") && e.getMessage().contains("connection refused"),
                e.getMessage());
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aProgramThatDoesNotReportItsCpuIsChargedWhatTheKernelCounted(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(ProcCpu.reapedChildrenNanos() >= 0, "no /proc here");
        // burns CPU for about 300 ms, then reports
        Fake load = new Fake(dir.resolve("load.log"),
                "end=$(( $(date +%s%N) + 300000000 )); while [ $(date +%s%N) -lt $end ]; do :; done; echo requests 1");
        ServerLoad.Window w = load.run(SERVER, Duration.ZERO, Duration.ofMillis(100), false, ServerLoad.Meter.NONE);
        assertTrue(w.clientCpu() >= 0.1 && w.clientCpu() < 5, "the shell's CPU, in seconds: " + w.clientCpu());
    }
}
