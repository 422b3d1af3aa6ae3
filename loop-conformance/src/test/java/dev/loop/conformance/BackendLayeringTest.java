package dev.loop.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.loop.spi.BackendProvider;
import dev.loop.spi.TimerQueueProvider;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The layout below loop-api, read from each backend module's compiled classes (docs/adr/0006 and
 * 0014): a backend sees the SPI and nothing else of loop-api (never the loop, the engine or
 * networking, which would let it reach past the contract), the native backends build on
 * loop-linux and Netty, and no backend uses another. loop-api's own packages are checked by
 * {@link LayeringTest}; both read the compiled classes with {@link ClassFiles}.
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
            new Module("loop-timerwheel", "dev.loop.timerwheel.TimerWheelProvider", Set.of("dev.loop.spi", "dev.loop.heap")),
            // a backend like the others, plus the simulation that opens its hosts' loops through the
            // public API as a user would (never the engine), and its JUnit extension
            new Module("loop-sim", "dev.loop.sim.SimBackendProvider", Set.of("dev.loop.spi", "dev.loop",
                    "org.junit.jupiter.api", "org.junit.jupiter.api.extension")));

    @Test
    void eachBackendUsesOnlyTheSpiAndWhatItBuildsOn() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (Module m : MODULES) {
            Class<?> anchor = Class.forName(m.anchor());
            String own = anchor.getPackageName();
            Map<String, Set<String>> used = ClassFiles.typesUsed(anchor);
            assertFalse(used.isEmpty(), "no classes found for " + m.name());
            used.forEach((cls, types) -> {
                for (String t : types) {
                    String pkg = ClassFiles.packageOf(t);
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
}
