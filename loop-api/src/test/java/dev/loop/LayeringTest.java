package dev.loop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
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
 * way by loop-conformance's {@code BackendLayeringTest}, which has them on its class path.
 *
 * <p>Every class file's constant pool is read: class references and the descriptors and generic
 * signatures in its UTF-8 entries, so a type used only in a method signature counts too.
 */
class LayeringTest {

    private static final String NET = "dev.loop.net";
    private static final String TRANSPORT = "dev.loop.net.transport";
    private static final String STREAM = "dev.loop.net.stream";
    private static final String TLS = "dev.loop.net.tls";
    private static final String DGRAM = "dev.loop.net.dgram";

    /** Package, then the packages of this module it may use (besides itself and the JDK). */
    private static final Map<String, Set<String>> ALLOWED = Map.of(
            "dev.loop.spi", Set.of(),
            "dev.loop.heap", Set.of("dev.loop.spi"),
            "dev.loop.engine", Set.of("dev.loop.spi"),
            "dev.loop", Set.of("dev.loop.engine", "dev.loop.spi"),
            "dev.loop.sync", Set.of("dev.loop"),
            // the facade: the public entry points open what the internal packages implement
            NET, Set.of("dev.loop", "dev.loop.spi", TRANSPORT, STREAM, DGRAM),
            TRANSPORT, Set.of("dev.loop", "dev.loop.engine", "dev.loop.spi", NET),
            TLS, Set.of("dev.loop", "dev.loop.engine", "dev.loop.spi", NET, TRANSPORT),
            STREAM, Set.of("dev.loop", "dev.loop.engine", "dev.loop.spi", NET, TRANSPORT, TLS),
            DGRAM, Set.of("dev.loop", "dev.loop.spi", NET, TRANSPORT));

    /** The packages other modules may use: the public API and the SPI; internals are not exported. */
    private static final Set<String> EXPORTED = Set.of("dev.loop", "dev.loop.sync", NET, "dev.loop.spi", "dev.loop.heap");

    /** Libraries a package may use besides the JDK: only the engine's inbox needs one. */
    private static final Map<String, Set<String>> LIBRARIES = Map.of("dev.loop.engine", Set.of("org.jctools"));

    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([a-zA-Z_$][\\w/$]*)[;<]");

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
        assertEquals(Set.of(TRANSPORT, STREAM, TLS, DGRAM), internal.keySet());
        for (String start : internal.keySet()) {
            assertTrue(!reaches(internal, start, start, new TreeSet<>()), start + " depends on itself through " + internal);
        }
        assertTrue(internal.get(TRANSPORT).isEmpty(), "the transport helpers name nothing above them: " + internal.get(TRANSPORT));
        assertEquals(Set.of(TRANSPORT), internal.get(TLS), "TLS sees the byte-pipe contract and its helpers, never a stream connection");
    }

    @Test
    void onlyTheApiAndTheSpiAreExported() throws IOException {
        Path descriptor = classesRoot().resolve("module-info.class");
        assertTrue(Files.exists(descriptor), "no module descriptor compiled at " + descriptor);
        Set<String> exported = new TreeSet<>();
        try (InputStream in = Files.newInputStream(descriptor)) {
            ModuleDescriptor.read(in).exports().forEach(e -> {
                assertTrue(e.targets().isEmpty(), "a qualified export: " + e);
                exported.add(e.source());
            });
        }
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
        Path root = classesRoot();
        assertTrue(Files.isDirectory(root), "expected loop-api's classes in a directory: " + root);
        Map<String, Set<String>> deps = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(f).toString().replace('\\', '/');
                if (name.equals("module-info.class")) {
                    continue;
                }
                String pkg = packageOf(name.substring(0, name.length() - ".class".length()));
                Set<String> mine = deps.computeIfAbsent(pkg, k -> new TreeSet<>());
                try (InputStream in = Files.newInputStream(f)) {
                    for (String type : referencedTypes(in)) {
                        String other = packageOf(type);
                        if (!other.equals(pkg) && !other.isEmpty()) {
                            mine.add(other);
                        }
                    }
                }
            }
        }
        return deps;
    }

    private static Path classesRoot() throws IOException {
        try {
            return Path.of(Loop.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IOException(e);
        }
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash).replace('/', '.');
    }

    /** Internal names of the classes a class file refers to, from its constant pool. */
    static Set<String> referencedTypes(InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException("not a class file");
        }
        in.readUnsignedShort(); // minor
        in.readUnsignedShort(); // major
        int count = in.readUnsignedShort();
        String[] utf8 = new String[count];
        List<Integer> classNameIndexes = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> utf8[i] = in.readUTF();
                case 7 -> classNameIndexes.add(in.readUnsignedShort()); // Class
                case 8, 16, 19, 20 -> in.readUnsignedShort(); // String, MethodType, Module, Package
                case 3, 4 -> in.readInt(); // Integer, Float
                case 5, 6 -> { // Long, Double take two slots
                    in.readLong();
                    i++;
                }
                case 9, 10, 11, 12, 17, 18 -> in.readInt(); // refs, NameAndType, (Invoke)Dynamic
                case 15 -> { // MethodHandle
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                default -> throw new IOException("unknown constant pool tag " + tag);
            }
        }
        Set<String> types = new TreeSet<>();
        for (int idx : classNameIndexes) {
            String n = utf8[idx];
            if (n.startsWith("[")) {
                addFromDescriptor(n, types);
            } else {
                types.add(n);
            }
        }
        for (String s : utf8) {
            if (s != null && s.indexOf(';') >= 0) {
                addFromDescriptor(s, types); // method and field descriptors, generic signatures
            }
        }
        return types;
    }

    private static void addFromDescriptor(String descriptor, Set<String> into) {
        Matcher m = TYPE_IN_DESCRIPTOR.matcher(descriptor);
        while (m.find()) {
            into.add(m.group(1));
        }
    }
}
