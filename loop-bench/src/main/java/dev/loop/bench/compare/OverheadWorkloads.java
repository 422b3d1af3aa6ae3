package dev.loop.bench.compare;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What the loop's metrics cost ({@code --workloads overhead}, and {@code --full}): the same server
 * of ours three times over, in turns in the same rounds: with metrics off
 * ({@code -Dloop.metrics=false}), on (the default), and on with a JFR recording of the JDK's
 * {@code default} settings plus the project's {@code loop.jfc}. Under echo ping-pong and HTTP
 * plaintext at 100 connections. Each server reports its own CPU time to the nanosecond
 * ({@link LoopProbe}), so CPU per message is compared round by round against "metrics off"
 * (targets: at most 1.02x on, 1.05x with JFR) without {@code /proc}'s 10 ms ticks in the way.
 */
final class OverheadWorkloads {
    static final String GROUP = "overhead";
    static final String OFF = ", metrics off";
    static final String ON = ", metrics on";
    static final String JFR = ", metrics on + JFR";
    static final int CONNECTIONS = 100;

    private OverheadWorkloads() {
    }

    /** epoll where it is among the chosen backends (the one a Linux server takes), else the first chosen. */
    static String backend(List<String> backends) {
        return backends.contains("epoll") ? "epoll" : backends.get(0);
    }

    static List<ServerLoad.Workload> echo(CompareOptions o, EchoLoad.Generator generator) {
        if (!o.runs(GROUP)) {
            return List.of();
        }
        return List.of(new ServerLoad.Workload(GROUP, "overhead: echo ping-pong 64 B, " + EchoWorkloads.label(CONNECTIONS),
                "msgs/s", "msg", false, new EchoLoad(generator, false, CONNECTIONS, EchoWorkloads.PING_SIZE, 1)));
    }

    static List<ServerLoad.Workload> http(CompareOptions o, boolean pin, Path logs) throws IOException {
        if (!o.runs(GROUP)) {
            return List.of();
        }
        return List.of(new ServerLoad.Workload(GROUP, "overhead: http plaintext, " + EchoWorkloads.label(CONNECTIONS),
                "requests/s", "request", false, new WrkLoad(pin, logs.resolve("wrk.log"),
                logs.resolve("wrk-depth-1.lua"), "/plaintext", CONNECTIONS, 1)));
    }

    /** The echo server three times: metrics off, on, on with JFR. */
    static List<ServerLoad.Spec> echoServers(String backend, String timers, Path dir) throws IOException {
        return servers(backend, timers, dir, EchoServerMain.class, List.of("--impl", "loop-" + backend, "--timers",
                timers));
    }

    /** The http-server three times: metrics off, on, on with JFR. */
    static List<ServerLoad.Spec> httpServers(String backend, String timers, Path dir) throws IOException {
        return servers(backend, timers, dir, ProtocolServerMain.class, List.of("--server", "http", "--backend",
                backend, "--timers", timers));
    }

    private static List<ServerLoad.Spec> servers(String backend, String timers, Path dir, Class<?> main,
                                                 List<String> args) throws IOException {
        Path jfc = jfc(dir);
        String name = "loop " + backend + "/" + timers;
        List<ServerLoad.Spec> out = new ArrayList<>();
        out.add(new ServerLoad.Spec(name + OFF, Row.Side.OURS, Processes.javaCommand(flags("-Dloop.metrics=false"),
                main, args), 0, null));
        out.add(new ServerLoad.Spec(name + ON, Row.Side.OURS, Processes.javaCommand(flags(null), main, args), 0, null));
        out.add(new ServerLoad.Spec(name + JFR, Row.Side.OURS, Processes.javaCommand(flags(jfrFlag(jfc)), main,
                args), 0, jfc == null ? "n/a (dev/loop/loop.jfc is not on the class path)" : null));
        return out;
    }

    /**
     * The benchmark JVMs' flags, plus {@code extra}, the same for all three otherwise: the JVM's
     * own log lines go to standard error, so JFR's "Started recording" cannot take the place of the
     * first line the runner reads.
     */
    static List<String> flags(String extra) {
        List<String> f = new ArrayList<>(Processes.JVM_FLAGS);
        f.add("-Xlog:disable");
        f.add("-Xlog:all=warning:stderr");
        // JFR configures its start-up line to standard output unless told otherwise
        f.add("-Xlog:jfr+startup=error:stderr");
        // the CPU figure sums the threads alive at the window's end: keep the JIT's threads alive
        f.add("-XX:-UseDynamicNumberOfCompilerThreads");
        if (extra != null) {
            f.add(extra);
        }
        return f;
    }

    /** JFR with the JDK's default settings and the project's events, kept on disk up to 64 MB. */
    static String jfrFlag(Path jfc) {
        return "-XX:StartFlightRecording:name=overhead,settings=default,settings=" + (jfc == null ? "missing.jfc"
                : jfc.toAbsolutePath()) + ",maxsize=64m";
    }

    /** loop-api's {@code dev/loop/loop.jfc}, copied into {@code dir}; null when it is not on the class path. */
    static Path jfc(Path dir) throws IOException {
        try (InputStream in = OverheadWorkloads.class.getResourceAsStream("/dev/loop/loop.jfc")) {
            if (in == null) {
                return null;
            }
            Files.createDirectories(dir);
            Path p = dir.resolve("loop.jfc");
            Files.copy(in, p, StandardCopyOption.REPLACE_EXISTING);
            return p;
        }
    }

    /**
     * Notes on the rows with metrics on: their score and CPU per operation against the same
     * server's with metrics off, medians of the per-round ratios with their intervals.
     */
    static void annotate(Results results) {
        Comparisons.annotate(results, GROUP, ON, OFF);
        Comparisons.annotate(results, GROUP, JFR, OFF);
    }
}
