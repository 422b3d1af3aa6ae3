package dev.loop.bench;

/**
 * JVM flags for the forked benchmark JVMs. JMH starts each fork with {@code java -cp}, where the
 * {@code Add-Exports} and {@code Enable-Native-Access} lines of the jar's manifest do not apply, so
 * every benchmark class repeats them in {@code @Fork(jvmArgsAppend = ...)}.
 */
final class BenchFlags {
    /** Netty's native epoll library is loaded through JNI. */
    static final String NATIVE_ACCESS = "--enable-native-access=ALL-UNNAMED";
    /** Tasks use {@code jdk.internal.vm.Continuation} when it is exported. */
    static final String EXPORT_CONTINUATION = "--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED";
    /** A fixed heap, the same for every implementation, so heap sizing does not differ between forks. */
    static final String HEAP_MIN = "-Xms2g";
    static final String HEAP_MAX = "-Xmx2g";

    private BenchFlags() {
    }
}
