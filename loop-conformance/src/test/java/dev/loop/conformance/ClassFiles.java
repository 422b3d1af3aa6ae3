package dev.loop.conformance;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URI;
import java.nio.file.FileSystem;
import java.nio.file.FileSystems;
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

/**
 * What a module's compiled classes name, read from their class files, for the layering tests
 * ({@link LayeringTest} for loop-api's packages, {@link BackendLayeringTest} for the modules below
 * it). Every class file's constant pool is read: class references and the descriptors and generic
 * signatures in its UTF-8 entries, so a type used only in a method signature counts too.
 */
final class ClassFiles {
    private static final Pattern TYPE_IN_DESCRIPTOR = Pattern.compile("L([a-zA-Z_$][\\w/$]*)[;<]");

    private ClassFiles() {
    }

    /**
     * For every class of the module holding {@code anchor} (its classes directory or its jar), the
     * internal names of the types it names; keyed by the class's binary name.
     */
    static Map<String, Set<String>> typesUsed(Class<?> anchor) throws IOException {
        Map<String, Set<String>> used = new TreeMap<>();
        read(anchor, root -> {
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
            return null;
        });
        return used;
    }

    /** The module descriptor compiled beside {@code anchor}, or null if there is none. */
    static ModuleDescriptor descriptor(Class<?> anchor) throws IOException {
        return read(anchor, root -> {
            Path d = root.resolve("module-info.class");
            if (!Files.exists(d)) {
                return null;
            }
            try (InputStream in = Files.newInputStream(d)) {
                return ModuleDescriptor.read(in);
            }
        });
    }

    /** The package of an internal ({@code a/b/C}) or binary ({@code a.b.C}) class name; "" for none. */
    static String packageOf(String className) {
        String dotted = className.replace('/', '.');
        int dot = dotted.lastIndexOf('.');
        return dot < 0 ? "" : dotted.substring(0, dot);
    }

    private interface Reader<T> {
        T read(Path root) throws IOException;
    }

    private static <T> T read(Class<?> anchor, Reader<T> reader) throws IOException {
        Path location;
        try {
            location = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IOException(e);
        }
        if (Files.isDirectory(location)) {
            return reader.read(location);
        }
        try (FileSystem jar = FileSystems.newFileSystem(URI.create("jar:" + location.toUri()), Map.of())) {
            return reader.read(jar.getPath("/"));
        }
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
