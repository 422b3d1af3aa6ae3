package dev.loop.bench.compare;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The comparison command's options. Two presets: quick (the default, a few minutes at most on two
 * cores) and {@code --full} (more iterations, every size, every combination); every other option
 * narrows or stretches the preset.
 *
 * @param full         the full preset
 * @param workloads    the workload families to run, from {@link #ALL_WORKLOADS}
 * @param backends     our backends to run; empty = every available one found
 * @param timers       our timer strategies; empty = the preset's choice (quick: every one for the
 *                     timer workloads, heap elsewhere; full: every one everywhere)
 * @param warmup       warm-up time per contender and workload (echo: per server, before any window)
 * @param iteration    length of one contender's measured window in a round
 * @param rounds       measured rounds per workload: in each, every contender measures one window in turn
 * @param connections  connection counts for the ping-pong echo and the HTTP workloads
 * @param streamConnections connection counts for the streaming echo workload
 * @param pending      timer counts for the timer workloads
 * @param peers        run the peers (Netty, the JDK, Python); off only to look at ours quickly
 * @param python       the Python interpreter used for the asyncio and uvloop peers
 * @param out          where the report, the JSON and the table go
 * @param pin          pin the echo server and the load generator to different CPUs with taskset
 * @param strace       count the servers' system calls per message or request with strace
 */
public record CompareOptions(boolean full, List<String> workloads, List<String> backends, List<String> timers,
                             Duration warmup, Duration iteration, int rounds, List<Integer> connections,
                             List<Integer> streamConnections, List<Integer> pending, boolean peers, String python,
                             Path out, boolean pin, boolean strace) {

    /** Every workload family, in the order they run. */
    public static final List<String> ALL_WORKLOADS = List.of("callsoon", "callsoon-foreign", "timers", "future",
            "task-switch", "spawn", "queue", "echo", "stream", "udp", "http", "redis", "overhead", "group");

    /**
     * The quick preset's families: all but the metrics' overhead and the loop group, which need
     * long, unpinned or many windows to say anything and would lengthen the README's quick run.
     */
    public static final List<String> QUICK_WORKLOADS = ALL_WORKLOADS.stream()
            .filter(w -> !w.equals("overhead") && !w.equals("group")).toList();

    public static final String USAGE = """
            usage: compare [--full] [options]
              Runs the same workloads on every backend x timer strategy found on the class path and on
              the peers (Netty 4.2, the JDK, Python asyncio/uvloop when installed), then prints a table
              and writes report.html, results.json and table.txt. Server rows of ours also show
              their loops' busy ratio and scheduling-lag p99 over the measured windows ("loop
              busy", "lag p99": Loop.metrics() at each window's start and end).
            presets:
              (none)              quick: about 11 minutes on two cores (4 of them http, redis)
              --full              real numbers: more and longer rounds, every size and combination
                                  (about an hour with three backends: 23 minutes of
                                  redis, 10 of http, 3 of the overhead and the loop group)
            options (each overrides the preset):
              --workloads LIST    comma-separated, from: %s
                                  (overhead and group run only when named, or with --full:
                                  overhead: echo and http with the loop's metrics off, on, and
                                  on with a JFR recording, CPU per message against off;
                                  group: http and redis on 1 and 2 loops, Netty's HTTP codec on
                                  1 and 2 event loops, unpinned)
              --backends LIST     our backends, e.g. select,epoll (default: every available one)
              --timers LIST       our timer strategies, e.g. heap,wheel (default: every one found)
              --duration D        one contender's measured window in a round, e.g. 200ms, 1s
              --warmup D          warm-up per contender (echo: per server, before any window)
              --rounds N          measured rounds; in each, every contender of a workload
                                  measures one window in turn (--iterations: the same)
              --connections LIST  ping-pong echo and HTTP (wrk) connection counts, e.g. 1,10,100
              --stream-connections LIST  streaming echo connection counts
              --pending LIST      timer counts for the timer workloads, e.g. 10000,1000000
              --no-peers          ours only
              --no-pin            do not pin server and load generator to separate CPUs
              --no-strace         do not count the servers' system calls with strace
              --python PATH       interpreter for the asyncio/uvloop peers (default /usr/bin/python3)
              --out DIR           output directory (default target/compare)
              --help              this text
            """.formatted(String.join(",", ALL_WORKLOADS));

    public static CompareOptions quick() {
        // 9 rounds: the fewest for which the median's 95% interval leaves out the lowest and the
        // highest round (Rounds.orderStatistic), so one disturbed round cannot widen it alone
        return new CompareOptions(false, QUICK_WORKLOADS, List.of(), List.of(), Duration.ofMillis(400),
                Duration.ofMillis(100), 9, List.of(1, 100), List.of(10), List.of(10_000), true,
                "/usr/bin/python3", Path.of("target", "compare"), true, true);
    }

    public static CompareOptions fullPreset() {
        // 10 rounds: the interval runs from the 2nd to the 9th ratio; 400 ms windows keep the whole
        // preset near an hour on two cores (Redis's default suite, twice, is 23 minutes of it)
        return new CompareOptions(true, ALL_WORKLOADS, List.of(), List.of(), Duration.ofSeconds(1),
                Duration.ofMillis(400), 10, List.of(1, 10, 100), List.of(1, 10, 100), List.of(10_000, 1_000_000), true,
                "/usr/bin/python3", Path.of("target", "compare"), true, true);
    }

    /** Thrown for a bad command line; the message says what is wrong. */
    public static final class UsageException extends IllegalArgumentException {
        public UsageException(String message) {
            super(message);
        }
    }

    /** Whether {@code --help} was asked for. */
    public static boolean wantsHelp(String... args) {
        return Arrays.asList(args).contains("--help") || Arrays.asList(args).contains("-h");
    }

    /**
     * Parses the command line: the preset first ({@code --full} anywhere), then each option over it.
     *
     * @throws UsageException naming the bad option or value
     */
    public static CompareOptions parse(String... args) {
        boolean full = Arrays.asList(args).contains("--full") || Arrays.asList(args).contains("--preset=full");
        CompareOptions o = full ? fullPreset() : quick();
        List<String> workloads = o.workloads;
        List<String> backends = o.backends;
        List<String> timers = o.timers;
        Duration warmup = o.warmup;
        Duration iteration = o.iteration;
        int rounds = o.rounds;
        List<Integer> connections = o.connections;
        List<Integer> streamConnections = o.streamConnections;
        List<Integer> pending = o.pending;
        boolean peers = o.peers;
        String python = o.python;
        Path out = o.out;
        boolean pin = o.pin;
        boolean strace = o.strace;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            switch (a) {
                case "--full", "--quick", "--preset" -> { }
                case "--no-peers" -> peers = false;
                case "--no-pin" -> pin = false;
                case "--no-strace" -> strace = false;
                case "--workloads" -> {
                    workloads = names(a, value != null ? value : next(args, ++i, a));
                    for (String w : workloads) {
                        if (!ALL_WORKLOADS.contains(w)) {
                            throw new UsageException("unknown workload '" + w + "' (known: "
                                    + String.join(", ", ALL_WORKLOADS) + ")");
                        }
                    }
                    // keep the canonical order, whatever order they were given in
                    List<String> chosen = workloads;
                    workloads = ALL_WORKLOADS.stream().filter(chosen::contains).toList();
                }
                case "--backends" -> backends = names(a, value != null ? value : next(args, ++i, a));
                case "--timers" -> timers = names(a, value != null ? value : next(args, ++i, a));
                case "--duration" -> iteration = duration(a, value != null ? value : next(args, ++i, a));
                case "--warmup" -> warmup = duration(a, value != null ? value : next(args, ++i, a));
                case "--rounds", "--iterations" -> rounds = positive(a, value != null ? value : next(args, ++i, a));
                case "--connections" -> connections = counts(a, value != null ? value : next(args, ++i, a));
                case "--stream-connections" -> streamConnections = counts(a, value != null ? value : next(args, ++i, a));
                case "--pending" -> pending = counts(a, value != null ? value : next(args, ++i, a));
                case "--python" -> python = value != null ? value : next(args, ++i, a);
                case "--out" -> out = Path.of(value != null ? value : next(args, ++i, a));
                default -> throw new UsageException("unknown option '" + args[i] + "'");
            }
        }
        if (iteration.isZero() || iteration.isNegative()) {
            throw new UsageException("--duration must be positive");
        }
        return new CompareOptions(full, workloads, backends, timers, warmup, iteration, rounds, connections,
                streamConnections, pending, peers, python, out, pin, strace);
    }

    private static String next(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    private static List<String> names(String option, String value) {
        Set<String> out = new LinkedHashSet<>();
        for (String s : value.split(",")) {
            String t = s.trim().toLowerCase(Locale.ROOT);
            if (!t.isEmpty()) {
                out.add(t);
            }
        }
        if (out.isEmpty()) {
            throw new UsageException(option + " needs at least one name");
        }
        return List.copyOf(out);
    }

    private static List<Integer> counts(String option, String value) {
        List<Integer> out = new ArrayList<>();
        for (String s : value.split(",")) {
            String t = s.trim().toLowerCase(Locale.ROOT).replace("_", "");
            if (t.isEmpty()) {
                continue;
            }
            int mul = 1;
            if (t.endsWith("k")) {
                mul = 1_000;
                t = t.substring(0, t.length() - 1);
            } else if (t.endsWith("m")) {
                mul = 1_000_000;
                t = t.substring(0, t.length() - 1);
            }
            out.add(Math.multiplyExact(positive(option, t), mul));
        }
        if (out.isEmpty()) {
            throw new UsageException(option + " needs at least one count");
        }
        return List.copyOf(out);
    }

    private static int positive(String option, String value) {
        try {
            int n = Integer.parseInt(value.trim());
            if (n < 1) {
                throw new UsageException(option + " must be at least 1, got " + value);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " expects a number, got '" + value + "'");
        }
    }

    /** 500ms, 2s, 1.5s, 1m; a bare number is seconds. */
    static Duration duration(String option, String value) {
        String v = value.trim().toLowerCase(Locale.ROOT);
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            if (v.endsWith("s")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 1000));
            }
            if (v.endsWith("m")) {
                return Duration.ofMillis(Math.round(Double.parseDouble(v.substring(0, v.length() - 1)) * 60_000));
            }
            return Duration.ofMillis(Math.round(Double.parseDouble(v) * 1000));
        } catch (NumberFormatException e) {
            throw new UsageException(option + " expects a duration such as 500ms or 2s, got '" + value + "'");
        }
    }

    public boolean runs(String workload) {
        return workloads.contains(workload);
    }
}
