package dev.loop.linux;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Array;
import java.nio.Buffer;
import java.util.Optional;

/**
 * Calls into the C library through {@code java.lang.foreign}, for the few functions Netty's
 * native library does not offer ({@code recvmmsg}/{@code sendmmsg}, {@code sendfile},
 * {@code malloc_trim}).
 *
 * <p>Why reflection: the API is final from JDK 22 and a preview in 21, the release this project
 * compiles for, so no foreign type may be named in the source. Everything is looked up by name,
 * once, when a caller links a function; hot paths then only {@code invokeExact} the handle. A
 * handle is absent on JDK 21, off Linux, for a symbol the C library lacks (musl has no
 * {@code malloc_trim}), and where native access is denied ({@code --illegal-native-access=deny});
 * {@link Downcall#unavailable()} says which, for the caller's fallback message. Where native
 * access was merely not granted ({@code --enable-native-access}) the JDK warns once about the
 * restricted call and the handle works.
 *
 * <p>Types: a handle's {@link MethodType} names {@code int} and {@code long} for C integers of
 * those widths and {@code Object} for a pointer (a {@code MemorySegment} at run time, see
 * {@link #segmentOf()}); a caller that passes pointers as 64-bit integers names {@code long}.
 */
public final class NativeCalls {
    /** Why no call can be made on this runtime, or null when calls can be linked. */
    private static final String UNAVAILABLE =
            Runtime.version().feature() < 22 ? "java.lang.foreign is final only from JDK 22, this is JDK "
                    + Runtime.version().feature()
            : !System.getProperty("os.name", "").startsWith("Linux") ? "not Linux"
            : null;

    private NativeCalls() {
    }

    /** A linked C function, or why it could not be linked. */
    public record Downcall(MethodHandle handle, String unavailable) {
        public boolean available() {
            return handle != null;
        }

        static Downcall absent(String why) {
            return new Downcall(null, why);
        }
    }

    /**
     * Links the C library's {@code symbol} as {@code type}. With {@code captureErrno} the handle
     * takes one more, leading, {@code Object}: the memory ({@link #callStateSize()} bytes) that
     * {@code errno} is written to, at {@link #errnoOffset()}.
     */
    public static Downcall link(String symbol, MethodType type, boolean captureErrno) {
        if (UNAVAILABLE != null) {
            return Downcall.absent(UNAVAILABLE);
        }
        try {
            Class<?> linkerClass = Class.forName("java.lang.foreign.Linker");
            Class<?> lookupClass = Class.forName("java.lang.foreign.SymbolLookup");
            Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
            Class<?> descriptorClass = Class.forName("java.lang.foreign.FunctionDescriptor");
            Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
            Class<?> optionClass = Class.forName("java.lang.foreign.Linker$Option");

            Object linker = linkerClass.getMethod("nativeLinker").invoke(null);
            Object lookup = linkerClass.getMethod("defaultLookup").invoke(linker);
            Optional<?> address = (Optional<?>) lookupClass.getMethod("find", String.class).invoke(lookup, symbol);
            if (address.isEmpty()) {
                return Downcall.absent("the C library has no " + symbol);
            }
            Object layouts = Array.newInstance(layoutClass, type.parameterCount());
            for (int i = 0; i < type.parameterCount(); i++) {
                Array.set(layouts, i, layout(type.parameterType(i), symbol));
            }
            Object descriptor = type.returnType() == void.class
                    ? descriptorClass.getMethod("ofVoid", layouts.getClass()).invoke(null, layouts)
                    : descriptorClass.getMethod("of", layoutClass, layouts.getClass())
                            .invoke(null, layout(type.returnType(), symbol), layouts);
            Object options = Array.newInstance(optionClass, captureErrno ? 1 : 0);
            if (captureErrno) {
                Array.set(options, 0, optionClass.getMethod("captureCallState", String[].class)
                        .invoke(null, (Object) new String[] {"errno"}));
            }
            MethodHandle handle = (MethodHandle) linkerClass
                    .getMethod("downcallHandle", segmentClass, descriptorClass, options.getClass())
                    .invoke(linker, address.get(), descriptor, options);
            return new Downcall(handle.asType(captureErrno ? type.insertParameterTypes(0, Object.class) : type), null);
        } catch (java.lang.reflect.InvocationTargetException e) {
            return Downcall.absent(symbol + ": " + e.getCause());
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            return Downcall.absent(symbol + ": " + e);
        }
    }

    /** The size of the memory a handle linked with {@code captureErrno} writes to. */
    public static int callStateSize() throws ReflectiveOperationException {
        Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
        return (int) (long) layoutClass.getMethod("byteSize").invoke(callStateLayout());
    }

    /** Where {@code errno} is in that memory. */
    public static int errnoOffset() throws ReflectiveOperationException {
        Class<?> layoutClass = Class.forName("java.lang.foreign.MemoryLayout");
        Class<?> pathClass = Class.forName("java.lang.foreign.MemoryLayout$PathElement");
        Object path = Array.newInstance(pathClass, 1);
        Array.set(path, 0, pathClass.getMethod("groupElement", String.class).invoke(null, "errno"));
        return (int) (long) layoutClass.getMethod("byteOffset", path.getClass()).invoke(callStateLayout(), path);
    }

    /** {@code MemorySegment.ofBuffer} as {@code (Buffer) -> Object}: a direct buffer as a pointer argument. */
    public static MethodHandle segmentOf() throws ReflectiveOperationException {
        Class<?> segmentClass = Class.forName("java.lang.foreign.MemorySegment");
        return MethodHandles.publicLookup()
                .findStatic(segmentClass, "ofBuffer", MethodType.methodType(segmentClass, Buffer.class))
                .asType(MethodType.methodType(Object.class, Buffer.class));
    }

    private static Object callStateLayout() throws ReflectiveOperationException {
        return Class.forName("java.lang.foreign.Linker$Option").getMethod("captureStateLayout").invoke(null);
    }

    private static Object layout(Class<?> type, String symbol) throws ReflectiveOperationException {
        Class<?> valueLayoutClass = Class.forName("java.lang.foreign.ValueLayout");
        String name = type == int.class ? "JAVA_INT"
                : type == long.class ? "JAVA_LONG"
                : type == Object.class ? "ADDRESS"
                : null;
        if (name == null) {
            throw new IllegalArgumentException(symbol + ": no C type for " + type + " (int, long or Object)");
        }
        return valueLayoutClass.getField(name).get(null);
    }
}
