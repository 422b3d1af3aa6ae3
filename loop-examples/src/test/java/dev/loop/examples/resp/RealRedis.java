package dev.loop.examples.resp;

import dev.loop.examples.ExternalTools;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} for the tests to hold our replies against: started on a free port of
 * 127.0.0.1 with persistence off and its files in a temporary directory, stopped (and its
 * directory removed) on close. Also the raw-socket client both servers are driven with.
 */
final class RealRedis implements AutoCloseable {
    private static final Duration START = Duration.ofSeconds(10);
    private final Process process;
    private final Path dir;
    final InetSocketAddress address;

    private RealRedis(Process process, Path dir, InetSocketAddress address) {
        this.process = process;
        this.dir = dir;
        this.address = address;
    }

    /** Starts one; the caller skips its test first if redis-server is not installed. */
    static RealRedis start() throws IOException, InterruptedException {
        IOException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            int port;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                port = s.getLocalPort(); // free now; redis-server binds it a moment later (retried if taken)
            }
            Path dir = Files.createTempDirectory("redis-server");
            Process p = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("log").toFile()).start();
            InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
            long deadline = System.nanoTime() + START.toNanos();
            while (System.nanoTime() < deadline && p.isAlive()) {
                try (Client c = new Client(a)) {
                    if ("+PONG\r\n".equals(c.callString("PING"))) {
                        return new RealRedis(p, dir, a);
                    }
                } catch (IOException e) {
                    last = e;
                    Thread.sleep(20); // polling a child process coming up, not a timer under test
                }
            }
            p.destroyForcibly().waitFor();
            deleteTree(dir);
        }
        throw new IOException("redis-server did not answer PING", last);
    }

    @Override
    public void close() throws Exception {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
        deleteTree(dir);
    }

    private static void deleteTree(Path dir) throws IOException {
        try (var files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    /** A raw RESP connection: commands as multibulk, replies read whole, as their bytes. */
    static final class Client implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;

        Client(InetSocketAddress a) throws IOException {
            socket = ExternalTools.connect(a, Duration.ofSeconds(10));
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        }

        void send(List<byte[]> args) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (byte[] a : args) {
                b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                b.writeBytes(a);
                b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(b.toByteArray());
            out.flush();
        }

        /** Bytes as they are: inline commands, or anything else a test sends. */
        void sendRaw(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        void send(String... args) throws IOException {
            List<byte[]> l = new ArrayList<>();
            for (String a : args) {
                l.add(a.getBytes(StandardCharsets.UTF_8));
            }
            send(l);
        }

        /** One whole reply, RESP2 or RESP3, as its bytes (ISO-8859-1 text). */
        String read() throws IOException {
            return Resp.read(in);
        }

        String callString(String... args) throws IOException {
            send(args);
            return read();
        }

        void setReadTimeout(Duration d) throws IOException {
            socket.setSoTimeout((int) d.toMillis());
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Reading replies of either protocol as their bytes, and comparing them without order. */
    static final class Resp {
        private Resp() {
        }

        static String read(InputStream in) throws IOException {
            String line = line(in);
            StringBuilder b = new StringBuilder(line).append("\r\n");
            char t = line.charAt(0);
            switch (t) {
                case '$', '=', '!' -> {
                    int n = Integer.parseInt(line.substring(1));
                    if (n >= 0) {
                        b.append(new String(ExternalTools.readExactly(in, n + 2), StandardCharsets.ISO_8859_1));
                    }
                }
                case '*', '~', '>', '%', '|' -> {
                    int n = Integer.parseInt(line.substring(1));
                    int items = t == '%' || t == '|' ? 2 * n : n;
                    for (int i = 0; i < items; i++) {
                        b.append(read(in));
                    }
                }
                default -> { }
            }
            return b.toString();
        }

        /** The reply with the elements of every aggregate in it sorted: equal for equal contents in any order. */
        static String canonical(String reply) {
            return canonical(new java.io.ByteArrayInputStream(reply.getBytes(StandardCharsets.ISO_8859_1)));
        }

        private static String canonical(InputStream in) {
            try {
                String line = line(in);
                char t = line.charAt(0);
                if ("*~>%|".indexOf(t) < 0 || line.equals("*-1")) {
                    String whole = read(new java.io.SequenceInputStream(
                            new java.io.ByteArrayInputStream((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1)),
                            in));
                    return whole;
                }
                int n = Integer.parseInt(line.substring(1));
                int items = t == '%' || t == '|' ? 2 * n : n;
                List<String> parts = new ArrayList<>();
                for (int i = 0; i < items; i++) {
                    parts.add(canonical(in));
                }
                parts.sort(null);
                return line + "\r\n" + String.join("", parts);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        }

        private static String line(InputStream in) throws IOException {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            for (int c = in.read(); c != '\n'; c = in.read()) {
                if (c < 0) {
                    throw new IOException("the connection ended inside a reply: " + b);
                }
                if (c != '\r') {
                    b.write(c);
                }
            }
            return b.toString(StandardCharsets.ISO_8859_1);
        }
    }
}
