package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.Loop;
import java.io.IOException;
import java.lang.module.ModuleDescriptor;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * The layout of loop-api, read from its compiled classes: which package may use which (each
 * package's {@code package-info.java} says the same in words). Imports point down only, so the
 * packages form no cycle; above all, the engine names nothing but the SPI.
 *
 * <p>Networking is one node with a facade inside (docs/adr/0013-networking-layout.md): the public
 * {@code dev.loop.net} calls into its internal packages, which implement its interfaces, so that
 * pair of edges is allowed and the cycle check sees {@code dev.loop.net.*} as one package. Among
 * the internal packages the edges point one way: stream, then TLS, then the transport helpers;
 * datagrams beside stream on the transport helpers.
 *
 * <p>The modules below loop-api (the backends, loop-linux, the timer wheel) are checked the same
 * way by {@link BackendLayeringTest}; both read the compiled classes with {@link ClassFiles}, here
 * where every module is on the class path.
 */
class LayeringTest {

    private static final String NET = "dev.loop.net";
    private static final String TRANSPORT = "dev.loop.net.transport";
    private static final String STREAM = "dev.loop.net.stream";
    private static final String TLS = "dev.loop.net.tls";
    private static final String DGRAM = "dev.loop.net.dgram";
    private static final String NAMES = "dev.loop.net.names";
    private static final String PROCESS = "dev.loop.process";
    private static final String LOG = "dev.loop.log";

    /** Package, then the packages of this module it may use (besides itself and the JDK). */
    private static final Map<String, Set<String>> ALLOWED = Map.ofEntries(
            Map.entry("dev.loop.spi", Set.of()),
            // the one form of a log record's context: names nothing, used by every layer that logs
            Map.entry(LOG, Set.of()),
            Map.entry("dev.loop.heap", Set.of("dev.loop.spi")),
            Map.entry("dev.loop.engine", Set.of("dev.loop.spi", LOG)),
            Map.entry("dev.loop", Set.of("dev.loop.engine", "dev.loop.spi", LOG)),
            Map.entry("dev.loop.sync", Set.of("dev.loop")),
            // the facade: the public entry points open what the internal packages implement
            Map.entry(NET, Set.of("dev.loop", "dev.loop.spi", TRANSPORT, STREAM, DGRAM, NAMES)),
            Map.entry(TRANSPORT, Set.of("dev.loop", "dev.loop.engine", "dev.loop.spi", NET, LOG)),
            Map.entry(TLS, Set.of("dev.loop", "dev.loop.engine", "dev.loop.spi", NET, TRANSPORT)),
            Map.entry(STREAM, Set.of("dev.loop", "dev.loop.engine", "dev.loop.spi", NET, TRANSPORT, TLS, LOG)),
            Map.entry(DGRAM, Set.of("dev.loop", "dev.loop.spi", NET, TRANSPORT, LOG)),
            // host names reach connections only through the public Net.connect
            Map.entry(NAMES, Set.of("dev.loop", NET)),
            // child processes: their pipes are transports under the stream layer's connections
            Map.entry(PROCESS, Set.of("dev.loop", "dev.loop.spi", NET, TRANSPORT, STREAM)));

    /** The packages other modules may use: the public API and the SPI; internals are not exported. */
    private static final Set<String> EXPORTED = Set.of("dev.loop", "dev.loop.sync", NET, PROCESS, "dev.loop.spi", "dev.loop.heap");

    /**
     * Libraries a package may use besides the JDK's java and javax: the engine's inbox needs one, and
     * {@code dev.loop.Signals} the one way a JVM lets a program handle signals ({@code sun.misc.Signal},
     * module jdk.unsupported).
     */
    private static final Map<String, Set<String>> LIBRARIES = Map.of("dev.loop.engine", Set.of("org.jctools", "jdk.jfr"),
            "dev.loop", Set.of("sun.misc", "jdk.jfr"));

    @Test
    void everyPackageUsesOnlyThePackagesBelowIt() throws IOException {
        Map<String, Set<String>> used = packageDependencies();
        assertEquals(ALLOWED.keySet(), used.keySet(), "a package was added or removed: update the table and its package-info");
        List<String> wrong = new ArrayList<>();
        used.forEach((pkg, deps) -> {
            for (String d : deps) {
                boolean ours = d.equals("dev.loop") || d.startsWith("dev.loop.");
                boolean allowed = ours ? ALLOWED.get(pkg).contains(d)
                        : d.startsWith("java.") || d.startsWith("javax.") || d.startsWith("jdk.internal.vm")
                        || LIBRARIES.getOrDefault(pkg, Set.of()).stream().anyMatch(d::startsWith);
                if (!allowed) {
                    wrong.add(pkg + " -> " + d);
                }
            }
        });
        assertTrue(wrong.isEmpty(), "dependencies against the layout: " + wrong);
    }

    @Test
    void thePackagesFormNoCycle() throws IOException {
        Map<String, Set<String>> used = new TreeMap<>();
        packageDependencies().forEach((pkg, deps) -> {
            Set<String> merged = used.computeIfAbsent(asOne(pkg), k -> new TreeSet<>());
            deps.forEach(d -> merged.add(asOne(d)));
            merged.remove(asOne(pkg));
        });
        for (String start : used.keySet()) {
            assertTrue(!reaches(used, start, start, new TreeSet<>()), start + " depends on itself through other packages");
        }
    }

    @Test
    void theNetworkingInternalsPointOneWay() throws IOException {
        Map<String, Set<String>> internal = new TreeMap<>();
        packageDependencies().forEach((pkg, deps) -> {
            if (pkg.startsWith(NET + ".")) {
                internal.put(pkg, new TreeSet<>(deps.stream().filter(d -> d.startsWith(NET + ".")).toList()));
            }
        });
        assertEquals(Set.of(TRANSPORT, STREAM, TLS, DGRAM, NAMES), internal.keySet());
        for (String start : internal.keySet()) {
            assertTrue(!reaches(internal, start, start, new TreeSet<>()), start + " depends on itself through " + internal);
        }
        assertTrue(internal.get(TRANSPORT).isEmpty(), "the transport helpers name nothing above them: " + internal.get(TRANSPORT));
        assertEquals(Set.of(TRANSPORT), internal.get(TLS), "TLS sees the byte-pipe contract and its helpers, never a stream connection");
    }

    @Test
    void onlyTheApiAndTheSpiAreExported() throws IOException {
        ModuleDescriptor descriptor = ClassFiles.descriptor(Loop.class);
        assertNotNull(descriptor, "no module descriptor compiled beside loop-api's classes");
        Set<String> exported = new TreeSet<>();
        descriptor.exports().forEach(e -> {
            assertTrue(e.targets().isEmpty(), "a qualified export: " + e);
            exported.add(e.source());
        });
        assertEquals(new TreeSet<>(EXPORTED), exported);
    }

    /** Networking counts as one package for the cycle check: its facade and internals call each other by design. */
    private static String asOne(String pkg) {
        return pkg.startsWith(NET + ".") ? NET : pkg;
    }

    private static boolean reaches(Map<String, Set<String>> graph, String from, String target, Set<String> seen) {
        for (String next : graph.getOrDefault(from, Set.of())) {
            if (next.equals(target)) {
                return true;
            }
            if (graph.containsKey(next) && seen.add(next) && reaches(graph, next, target, seen)) {
                return true;
            }
        }
        return false;
    }

    /** For each package of loop-api's classes, the other packages its classes name. */
    private static Map<String, Set<String>> packageDependencies() throws IOException {
        Map<String, Set<String>> deps = new TreeMap<>();
        ClassFiles.typesUsed(Loop.class).forEach((cls, types) -> {
            String pkg = ClassFiles.packageOf(cls);
            Set<String> mine = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
            for (String type : types) {
                String other = ClassFiles.packageOf(type);
                if (!other.equals(pkg) && !other.isEmpty()) {
                    mine.add(other);
                }
            }
        });
        return deps;
    }
}
