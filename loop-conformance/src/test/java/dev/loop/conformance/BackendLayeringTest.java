package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.loop.spi.BackendProvider;
import dev.loop.spi.TimerQueueProvider;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layout below loop-api, read from each backend module's compiled classes (docs/adr/0006 and
 * 0014): a backend sees the SPI and nothing else of loop-api (never the loop, the engine or
 * networking, which would let it reach past the contract), the native backends build on
 * loop-linux and Netty, and no backend uses another. loop-api's own packages are checked by its
 * {@code LayeringTest}, which cannot see these modules; this module has them all on its class path.
 *
 * <p>Every class file's constant pool is read: class references and the descriptors and generic
 * signatures in its UTF-8 entries, so a type used only in a method signature counts too.
 */
class BackendLayeringTest {

    /** A module, named by one public class of it, and the packages besides its own and the JDK's it may use. */
    private record Module(String name, String anchor, Set<String> mayUse) {
    }

    private static final Set<String> SPI = Set.of("dev.loop.spi");
    /**
     * Netty's packages under every native backend; each backend adds its own transport's. A name
     * ending in {@code .*} allows the packages below it too.
     */
    private static final Set<String> NETTY = Set.of("io.netty.channel.unix", "io.netty.channel", "io.netty.buffer.*",
            "io.netty.util.*");

    private static final List<Module> MODULES = List.of(
            new Module("loop-select", "dev.loop.select.SelectBackendProvider", SPI),
            new Module("loop-linux", "dev.loop.linux.NativeStreams", union(SPI, NETTY)),
            new Module("loop-epoll", "dev.loop.epoll.EpollBackendProvider",
                    union(SPI, NETTY, Set.of("dev.loop.linux", "io.netty.channel.epoll"))),
            new Module("loop-iouring", "dev.loop.iouring.IoUringBackendProvider",
                    union(SPI, NETTY, Set.of("dev.loop.linux", "io.netty.channel.uring"))),
            new Module("loop-timerwheel", "dev.loop.timerwheel.TimerWheelProvider", Set.of("dev.loop.spi", "dev.loop.heap")));

    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([a-zA-Z_$][\\w/$]*)[;<]");

    @Test
    void eachBackendUsesOnlyTheSpiAndWhatItBuildsOn() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Module m : MODULES) {
            Class<?> anchor = Class.forName(m.anchor());
            String own = anchor.getPackageName();
            Map<String, Set<String>> used = typesUsed(anchor);
            assertFalse(used.isEmpty(), "no classes found for " + m.name());
            used.forEach((cls, types) -> {
                for (String t : types) {
                    String pkg = packageOf(t);
                    if (!pkg.isEmpty() && !pkg.equals(own) && !isJdk(pkg) && !allowed(m, pkg)) {
                        wrong.add(m.name() + ": " + cls + " -> " + t.replace('/', '.'));
                    }
                }
            });
        }
        assertEquals(List.of(), wrong, "a backend reaches past the SPI, or into another backend");
    }

    @Test
    void everyProviderOnTheClassPathIsInTheTable() {
        Set<String> listed = new TreeSet<>();
        MODULES.forEach(m -> listed.add(m.anchor().substring(0, m.anchor().lastIndexOf('.'))));
        listed.add("dev.loop.heap"); // loop-api's own, checked by its LayeringTest
        List<String> missing = new ArrayList<>();
        Stream.concat(ServiceLoader.load(BackendProvider.class).stream(), ServiceLoader.load(TimerQueueProvider.class).stream())
                .map(p -> p.type().getPackageName())
                .filter(pkg -> !listed.contains(pkg))
                .forEach(missing::add);
        assertEquals(List.of(), missing, "a provider module this test does not check: add it to MODULES");
    }

    @SafeVarargs
    private static Set<String> union(Set<String>... sets) {
        Set<String> all = new TreeSet<>();
        for (Set<String> s : sets) {
            all.addAll(s);
        }
        return all;
    }

    private static boolean allowed(Module m, String pkg) {
        for (String p : m.mayUse()) {
            boolean below = p.endsWith(".*");
            String base = below ? p.substring(0, p.length() - 2) : p;
            if (pkg.equals(base) || below && pkg.startsWith(base + ".")) {
                return true;
            }
        }
        return false;
    }

    private static boolean isJdk(String pkg) {
        return pkg.startsWith("java.") || pkg.startsWith("javax.") || pkg.startsWith("jdk.");
    }

    /** Class name to the types it names, for every class of the module (a directory or a jar) holding {@code anchor}. */
    private static Map<String, Set<String>> typesUsed(Class<?> anchor) throws Exception {
        Path location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (Files.isDirectory(location)) {
            return typesUsedUnder(location);
        }
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + location.toUri()), Map.of())) {
            return typesUsedUnder(jar.getPath("/"));
        }
    }

    private static Map<String, Set<String>> typesUsedUnder(Path root) throws IOException {
        Map<String, Set<String>> used = new TreeMap<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".class"))::iterator) {
                String name = root.relativize(f).toString().replace('\\', '/');
                if (name.endsWith("module-info.class")) {
                    continue;
                }
                try (InputStream in = Files.newInputStream(f)) {
                    used.put(name.substring(0, name.length() - ".class".length()).replace('/', '.'), referencedTypes(in));
                }
            }
        }
        return used;
    }

    private static String packageOf(String internalName) {
        int slash = internalName.lastIndexOf('/');
        return slash < 0 ? "" : internalName.substring(0, slash).replace('/', '.');
    }

    /** Internal names of the classes a class file refers to, from its constant pool. */
    private static Set<String> referencedTypes(InputStream classFile) throws IOException {
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
