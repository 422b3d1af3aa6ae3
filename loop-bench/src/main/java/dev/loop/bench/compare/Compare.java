package dev.loop.bench.compare;

import dev.loop.Loops;
import dev.loop.ProviderInfo;
import io.netty.channel.epoll.Epoll;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * "Which backend should I use, and how does it compare with Netty?": finds every backend and
 * timer strategy on the class path, runs the same workloads on each combination and on the peers
 * (Netty 4.2, the JDK, Python asyncio/uvloop when installed) in one run, prints a side-by-side
 * table with ratios and the targets, and writes {@code report.html}, {@code results.json},
 * {@code table.txt} and {@code table.md}. See {@link CompareOptions#USAGE}.
 */
public final class Compare {
    private Compare() {
    }

    public static void main(String[] args) {
        if (CompareOptions.wantsHelp(args)) {
            System.out.print(CompareOptions.USAGE);
            return;
        }
        CompareOptions options;
        try {
            options = CompareOptions.parse(args);
        } catch (CompareOptions.UsageException e) {
            System.err.println("compare: " + e.getMessage());
            System.err.print(CompareOptions.USAGE);
            System.exit(2);
            return;
        }
        try {
            System.exit(run(options, args, System.out));
        } catch (IllegalArgumentException e) {
            System.err.println("compare: " + e.getMessage());
            System.exit(2);
        } catch (IOException e) {
            System.err.println("compare: " + e);
            System.exit(1);
        }
    }

    static int run(CompareOptions o, String[] args, PrintStream out) throws IOException {
        long start = System.nanoTime();
        Results results = new Results();
        String invocation = System.getProperty("compare.invocation", "compare");
        results.meta("command", command(invocation, args));
        results.meta("preset", o.full() ? "full" : "quick");
        results.meta("started", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME));
        results.meta("machine", cpuModel() + ", " + Runtime.getRuntime().availableProcessors() + " CPUs, "
                + memory());
        results.meta("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        results.meta("jdk", System.getProperty("java.vm.vendor") + " " + System.getProperty("java.runtime.version")
                + " (" + Processes.java() + ")");
        results.meta("versions", "JMH " + jmhVersion() + ", Netty " + nettyVersion());
        results.meta("load before (1/5/15 min)", loadAverage());

        // --- discovery -------------------------------------------------------------------------
        List<String> backends = new ArrayList<>();
        List<String> timers = new ArrayList<>();
        List<String> found = new ArrayList<>();
        for (ProviderInfo p : Loops.providers()) {
            found.add(p.describe());
            if (!p.available()) {
                continue;
            }
            (p.kind().equals(ProviderInfo.BACKEND) ? backends : timers).add(p.name());
        }
        results.meta("providers found", String.join("; ", found));
        backends = choose("backend", o.backends(), backends);
        timers = choose("timer strategy", o.timers(), timers);
        List<String> defaultTimers = !o.timers().isEmpty() || o.full() ? timers
                : List.of(timers.contains("heap") ? "heap" : timers.get(0));
        List<String> transports = new ArrayList<>(List.of("nio"));
        String epollWhy = Epoll.isAvailable() ? null : "n/a (Netty epoll unavailable: " + Epoll.unavailabilityCause() + ")";
        if (epollWhy == null) {
            transports.add("epoll");
        }
        boolean pin = o.pin() && Processes.canPin();
        results.meta("pinning", pin ? "servers on CPU 0, load generators on CPU 1 (taskset)"
                : "none (" + (o.pin() ? "taskset or a second CPU missing" : "--no-pin") + ")");
        results.meta("python", o.peers() ? PythonPeers.describe(o.python()) : "not run (--no-peers)");
        results.meta("pairing", pairing(o));

        // --- the plan --------------------------------------------------------------------------
        Files.createDirectories(o.out());
        Path scripts = Processes.extractPython(o.out().resolve("python"));
        Path logs = o.out().resolve("logs");
        MicroRunner.Plan plan = new MicroRunner.Plan(backends, timers, defaultTimers, transports, o.pending(), o.full(),
                o.peers());
        Map<String, List<MicroRunner.Contender>> microWorkloads = MicroRunner.contenders(o, scripts,
                MicroRunner.cases(o, plan), o.peers() && o.runs("queue"));
        EchoLoad.Generator generator = new EchoLoad.Generator(pin, logs.resolve("load-generator.log"));
        List<ServerLoad.Workload> echo = EchoWorkloads.workloads(o, generator);
        List<ServerLoad.Spec> servers = echo.isEmpty() ? List.of()
                : EchoWorkloads.servers(o, backends, defaultTimers, epollWhy, scripts);
        List<ServerLoad.Workload> udp = UdpWorkloads.workloads(o);
        List<ServerLoad.Spec> udpServers = udp.isEmpty() ? List.of() : UdpWorkloads.servers(o, backends, epollWhy);
        Files.createDirectories(logs);
        List<ServerLoad.Workload> http = ProtocolWorkloads.http(o, pin, logs);
        List<ServerLoad.Spec> httpServers = http.isEmpty() ? List.of()
                : ProtocolWorkloads.httpServers(o, backends, defaultTimers, o.out());
        List<ServerLoad.Workload> redis = ProtocolWorkloads.redis(o, pin, logs);
        List<ServerLoad.Spec> redisServers = redis.isEmpty() ? List.of()
                : ProtocolWorkloads.redisServers(o, backends, defaultTimers, o.out());
        // the metrics' overhead and the loop group: one backend, the first timer strategy
        String oneBackend = OverheadWorkloads.backend(backends);
        String oneTimers = defaultTimers.get(0);
        List<ServerLoad.Workload> overheadEcho = OverheadWorkloads.echo(o, generator);
        List<ServerLoad.Spec> overheadEchoServers = overheadEcho.isEmpty() ? List.of()
                : OverheadWorkloads.echoServers(oneBackend, oneTimers, o.out().resolve("overhead"));
        List<ServerLoad.Workload> overheadHttp = OverheadWorkloads.http(o, pin, logs);
        List<ServerLoad.Spec> overheadHttpServers = overheadHttp.isEmpty() ? List.of()
                : OverheadWorkloads.httpServers(oneBackend, oneTimers, o.out().resolve("overhead"));
        List<ServerLoad.Workload> groupHttp = GroupWorkloads.http(o, logs);
        List<ServerLoad.Spec> groupHttpServers = groupHttp.isEmpty() ? List.of()
                : GroupWorkloads.httpServers(o, oneBackend, oneTimers);
        List<ServerLoad.Workload> groupRedis = GroupWorkloads.redis(o, logs);
        List<ServerLoad.Spec> groupRedisServers = groupRedis.isEmpty() ? List.of()
                : GroupWorkloads.redisServers(oneBackend, oneTimers);
        // a family without its load generator is not run: every row of it says which program is missing
        String wrkWhy = http.isEmpty() && overheadHttp.isEmpty() && groupHttp.isEmpty() ? null
                : ProtocolWorkloads.missing(ProtocolWorkloads.find("wrk"), "wrk", "wrk");
        String redisWhy = redis.isEmpty() && groupRedis.isEmpty() ? null : ProtocolWorkloads.missing(
                ProtocolWorkloads.find("redis-benchmark"), "redis-benchmark", "redis-tools");
        int total = microWorkloads.size() + (echo.isEmpty() ? 0 : 1 + echo.size()) + (udp.isEmpty() ? 0 : 1 + udp.size())
                + (http.isEmpty() || wrkWhy != null ? 0 : 1 + http.size())
                + (redis.isEmpty() || redisWhy != null ? 0 : 1 + redis.size())
                + (overheadEcho.isEmpty() ? 0 : 1 + overheadEcho.size())
                + (overheadHttp.isEmpty() || wrkWhy != null ? 0 : 1 + overheadHttp.size())
                + (groupHttp.isEmpty() || wrkWhy != null ? 0 : 1 + groupHttp.size())
                + (groupRedis.isEmpty() || redisWhy != null ? 0 : 1 + groupRedis.size());
        Progress progress = new Progress(out, total);
        out.println("compare: " + results.meta().get("preset") + " preset; backends " + backends + ", timers "
                + timers + (defaultTimers.equals(timers) ? "" : " (" + defaultTimers + " outside the timer workloads)")
                + ", Netty transports " + transports + "; " + total + " steps; " + results.meta().get("pairing"));

        // --- micro benchmarks (one JVM per contender, in turns) ---------------------------------
        if (!microWorkloads.isEmpty()) {
            String lock = jmhLock();
            if (lock != null) {
                results.meta("note", lock);
                progress.note("compare: " + lock);
            }
            new MicroRunner(o, progress, logs, scripts).run(microWorkloads, results);
        }
        // --- servers (processes, in turns) -------------------------------------------------------
        if (!echo.isEmpty() || !udp.isEmpty() || !http.isEmpty() || !redis.isEmpty() || o.runs(OverheadWorkloads.GROUP)
                || o.runs(GroupWorkloads.GROUP)) {
            String straceWhy = o.strace() ? Syscalls.ensureStrace(progress) : "n/a (--no-strace)";
            results.meta("system calls", straceWhy == null ? "strace -c -f -p TID (every thread but a JVM's JIT compiler threads) over one "
                    + traceWindow(o).toMillis() + " ms burst per server and workload, apart from the measured windows"
                    : straceWhy);
            ServerRunner.Settings settings = new ServerRunner.Settings(echoWarmup(o), settle(o), o.iteration(),
                    o.rounds(), traceWindow(o), pin, straceWhy);
            ServerRunner runner = new ServerRunner(settings, progress, logs);
            if (!echo.isEmpty()) {
                runner.run(servers, echo, results);
            }
            if (!udp.isEmpty()) {
                runner.run(udpServers, udp, results);
            }
            protocol(runner, "http", httpServers, http, wrkWhy, results, progress);
            protocol(runner, "redis", redisServers, redis, redisWhy, results, progress);
            if (o.runs(OverheadWorkloads.GROUP)) {
                // the same server three times: its system calls do not differ, its CPU is read to the nanosecond
                ServerRunner overhead = new ServerRunner(new ServerRunner.Settings(echoWarmup(o), settle(o),
                        o.iteration(), o.rounds(), traceWindow(o), pin,
                        "n/a (not traced: the same server with metrics off, on, and with JFR)", true), progress, logs);
                overhead.run(overheadEchoServers, overheadEcho, results);
                protocol(overhead, "overhead http", overheadHttpServers, overheadHttp, wrkWhy, results, progress);
                OverheadWorkloads.annotate(results);
            }
            if (o.runs(GroupWorkloads.GROUP)) {
                // unpinned: two loops on the one CPU a pinned server gets could not scale at all
                results.meta("pinning (group)", "none: servers and load generators share every CPU");
                ServerRunner group = new ServerRunner(new ServerRunner.Settings(echoWarmup(o), settle(o),
                        o.iteration(), o.rounds(), traceWindow(o), false, straceWhy), progress, logs);
                protocol(group, "group http", groupHttpServers, groupHttp, wrkWhy, results, progress);
                protocol(group, "group redis", groupRedisServers, groupRedis, redisWhy, results, progress);
                GroupWorkloads.annotate(results);
            }
        }

        results.meta("load after (1/5/15 min)", loadAverage());
        results.meta("duration", String.format(Locale.ROOT, "%.0f s", (System.nanoTime() - start) / 1e9));
        List<Targets.Outcome> targets = Targets.evaluate(results);

        String table = TableFormatter.text(results);
        String targetText = Targets.text(targets);
        out.println();
        out.print(table);
        out.println();
        out.println("Targets:");
        out.print(targetText);
        Files.writeString(o.out().resolve("table.txt"), table + "\nTargets:\n" + targetText, StandardCharsets.UTF_8);
        Files.writeString(o.out().resolve("table.md"), TableFormatter.markdown(results) + "\n"
                + Targets.markdown(targets), StandardCharsets.UTF_8);
        Files.writeString(o.out().resolve("results.json"), JsonWriter.write(results, targets), StandardCharsets.UTF_8);
        Path html = o.out().resolve("report.html");
        Files.writeString(html, HtmlReport.render(results, targets), StandardCharsets.UTF_8);
        out.println();
        out.println("report: " + html.toAbsolutePath() + "  (raw: results.json, table.txt, table.md alongside)");
        out.printf(Locale.ROOT, "took %s%n", results.meta().get("duration"));
        return 0;
    }

    /** One protocol family on its own servers, or, without its load generator, rows that say so. */
    private static void protocol(ServerRunner runner, String family, List<ServerLoad.Spec> specs,
                                 List<ServerLoad.Workload> workloads, String missingLoad, Results results,
                                 Progress progress) throws IOException {
        if (workloads.isEmpty()) {
            return;
        }
        if (missingLoad != null) {
            progress.note("compare: " + family + " workloads not run: " + missingLoad);
            ProtocolWorkloads.skipAll(specs, workloads, missingLoad, results);
            return;
        }
        runner.run(specs, workloads, results);
    }

    /** Each echo server's warm-up under load, before any window: the JIT compiles every server first. */
    static Duration echoWarmup(CompareOptions o) {
        return o.warmup().multipliedBy(3);
    }

    /** Unmeasured load on fresh connections before an echo window. */
    static Duration settle(CompareOptions o) {
        return o.full() ? Duration.ofMillis(100) : Duration.ofMillis(50);
    }

    /** The burst traced for system calls. */
    static Duration traceWindow(CompareOptions o) {
        return o.full() ? Duration.ofMillis(500) : Duration.ofMillis(300);
    }

    /** How contenders share the machine, for the report. */
    static String pairing(CompareOptions o) {
        return String.format(Locale.ROOT, "in turns: every contender of a workload in a process of its own, all alive at"
                + " once; %d ms warm-up each (futures: %d ms; servers: %d ms each under every workload's load, all"
                + " before any window), then %d rounds in which each contender measures one %d ms window, the order"
                + " rotated every round; ratios are medians of per-round ratios, +-%% the %.0f%% confidence interval of"
                + " that median",
                o.warmup().toMillis(), MicroRunner.warmup("future", o.warmup()).toMillis(), echoWarmup(o).toMillis(),
                o.rounds(), o.iteration().toMillis(),
                Rounds.CONFIDENCE * 100);
    }

    /** How this run was asked for: Maven's form passes the options in -Dcompare.args. */
    static String command(String invocation, String[] args) {
        String a = String.join(" ", args).trim();
        if (a.isEmpty()) {
            return invocation;
        }
        if (invocation.startsWith("mvn ")) {
            return invocation + (a.contains(" ") ? " \"-Dcompare.args=" + a + "\"" : " -Dcompare.args=" + a);
        }
        return invocation + " " + a;
    }

    /** The chosen names, checked against the available ones; all available ones if none chosen. */
    static List<String> choose(String what, List<String> chosen, List<String> available) {
        if (available.isEmpty()) {
            throw new IllegalArgumentException("no " + what + " is available on the class path");
        }
        if (chosen.isEmpty()) {
            return available;
        }
        for (String c : chosen) {
            if (!available.contains(c)) {
                throw new IllegalArgumentException(what + " '" + c + "' is not available here; available: " + available);
            }
        }
        return chosen;
    }

    /** Null if no other JMH run holds JMH's lock file, else a sentence saying one does. */
    static String jmhLock() {
        Path lock = Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
        try (RandomAccessFile f = new RandomAccessFile(lock.toFile(), "rw"); FileChannel ch = f.getChannel()) {
            FileLock l = ch.tryLock();
            if (l != null) {
                l.release();
                return null;
            }
        } catch (IOException | RuntimeException e) {
            return null;
        }
        return "another JMH run on this machine held " + lock + " when this run started: figures may be disturbed";
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return System.getProperty("os.arch");
    }

    static String memory() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal:")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(Locale.ROOT, "%.0f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return "memory unknown";
    }

    static String jmhVersion() {
        try (InputStream in = org.openjdk.jmh.runner.Runner.class.getResourceAsStream("/jmh.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("jmh.version", "?");
        } catch (IOException e) {
            return "?";
        }
    }

    static String nettyVersion() {
        var v = io.netty.util.Version.identify().get("netty-transport");
        return v == null ? "?" : v.artifactVersion();
    }

    /** Why Netty's io_uring transport cannot run here, as a table cell; null when it can. */
    static String ioUringUnavailable() {
        try {
            return io.netty.channel.uring.IoUring.isAvailable() ? null
                    : "n/a (Netty io_uring unavailable: " + io.netty.channel.uring.IoUring.unavailabilityCause() + ")";
        } catch (LinkageError e) {
            return "n/a (Netty io_uring not on the class path: " + e + ")";
        }
    }
}
