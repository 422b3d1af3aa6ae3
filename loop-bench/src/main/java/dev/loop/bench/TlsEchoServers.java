package dev.loop.bench;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.Net;
import dev.loop.net.Server;
import dev.loop.net.ServerOptions;
import dev.loop.net.TlsContexts;
import dev.loop.net.TlsOptions;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * The TLS echo servers {@link TlsEchoBenchmark} and {@link TlsEchoRounds} measure, each serving
 * from one thread with the same {@link SSLContext} (TLS 1.3 only, a self-signed EC P-256
 * certificate; the JDK picks AES-GCM): {@code loop-<backend>} is ours (push-style echo, as the
 * compare command's), {@code netty-nio} and {@code netty-epoll} are Netty's {@code SslHandler} over
 * the JDK's engine in front of its echo as its examples write it. Both run delegated handshake tasks
 * inline on their thread (Netty's default; ours is told so), so a handshake is the same work on
 * both. Clients are the JDK's blocking {@link SSLSocket}, the same for every server.
 */
final class TlsEchoServers {
    static final List<String> ALL = List.of("loop-select", "loop-epoll", "netty-nio", "netty-epoll");

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** A running server: where it listens, its serving thread, how to stop it. */
    record Running(String name, InetSocketAddress address, long thread, AutoCloseable stop) implements AutoCloseable {
        /** Bytes the serving thread has allocated so far. */
        long allocated() {
            return THREADS.getThreadAllocatedBytes(thread);
        }

        /** CPU time the serving thread has used so far, in nanoseconds. */
        long cpuNanos() {
            return THREADS.getThreadCpuTime(thread);
        }

        @Override
        public void close() throws Exception {
            stop.close();
        }
    }

    /** The server's context and a client socket factory trusting it. */
    record Contexts(SSLContext server, SSLSocketFactory clients) {
        static Contexts make() throws Exception {
            Path[] pem = selfSigned(Files.createTempDirectory("loop-tls-bench-"));
            return new Contexts(TlsContexts.fromPem(pem[0], pem[1]), TlsContexts.trusting(pem[0]).getSocketFactory());
        }

        /** A connected, handshaken TLS 1.3 client with TCP_NODELAY. */
        SSLSocket connect(InetSocketAddress to) throws IOException {
            SSLSocket s = (SSLSocket) clients.createSocket(to.getAddress(), to.getPort());
            s.setTcpNoDelay(true);
            s.setEnabledProtocols(new String[] {"TLSv1.3"});
            s.startHandshake();
            return s;
        }
    }

    private TlsEchoServers() {
    }

    static Running start(String name, SSLContext context) throws Exception {
        InetSocketAddress any = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
        return switch (name) {
            case "loop-select", "loop-epoll", "loop-io_uring" -> startOurs(name, context, any);
            case "netty-nio", "netty-epoll" -> startNetty(name, context, any);
            default -> throw new IllegalArgumentException("unknown TLS echo server " + name + "; one of " + ALL);
        };
    }

    private static Running startOurs(String name, SSLContext context, InetSocketAddress any) throws Exception {
        OurLoop ours = new OurLoop(LoopOptions.defaults().withBackend(name.substring("loop-".length())));
        Executor inline = Runnable::run;
        TlsOptions tls = TlsOptions.of(context).withProtocols("TLSv1.3").withTaskExecutor(inline);
        Server s = onLoop(ours.loop, () -> Net.listen(ours.loop, any, ServerOptions.defaults(), tls, c -> c.setHandler(ECHO)));
        long thread = onLoop(ours.loop, () -> Thread.currentThread().threadId());
        return new Running(name, s.localAddress(), thread, ours::close);
    }

    private static <T> T onLoop(Loop loop, Callable<T> what) throws Exception {
        CompletableFuture<T> f = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                f.complete(what.call());
            } catch (Exception e) {
                f.completeExceptionally(e);
            }
        });
        return f.get(10, TimeUnit.SECONDS);
    }

    /** Push style, as the plaintext echo of the compare command. */
    private static final ConnectionHandler ECHO = (conn, data) -> {
        conn.write(data);
        if (!conn.isWritable()) {
            conn.pauseReading();
            conn.drain().onDone(f -> conn.resumeReading());
        }
    };

    private static Running startNetty(String name, SSLContext context, InetSocketAddress any) throws Exception {
        boolean epoll = name.equals("netty-epoll");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Channel ch = new ServerBootstrap().group(group)
                .channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel c) {
                        SSLEngine engine = context.createSSLEngine();
                        engine.setUseClientMode(false);
                        engine.setEnabledProtocols(new String[] {"TLSv1.3"});
                        c.pipeline().addLast(new SslHandler(engine), new NettyEcho());
                    }
                })
                .bind(any).sync().channel();
        long thread = group.submit(() -> Thread.currentThread().threadId()).get(10, TimeUnit.SECONDS);
        return new Running(name, (InetSocketAddress) ch.localAddress(), thread, () -> {
            ch.close().sync();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        });
    }

    /** Netty's echo as its examples write it: write on read, flush when the read batch ends. */
    @ChannelHandler.Sharable
    static final class NettyEcho extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            ctx.write(msg);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A self-signed EC certificate for localhost made by this JDK's keytool, as PEM files. */
    private static Path[] selfSigned(Path dir) throws Exception {
        Path store = dir.resolve("store.p12");
        char[] pw = "changeit".toCharArray();
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        Process p = new ProcessBuilder(List.of(keytool.toString(), "-genkeypair", "-alias", "server", "-keyalg", "EC",
                "-groupname", "secp256r1", "-dname", "CN=localhost", "-ext", "SAN=dns:localhost,ip:127.0.0.1",
                "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit",
                "-keypass", "changeit")).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("keytool failed: " + said);
        }
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream i = Files.newInputStream(store)) {
            ks.load(i, pw);
        }
        Base64.Encoder b64 = Base64.getMimeEncoder(64, new byte[] {'\n'});
        Path cert = Files.writeString(dir.resolve("cert.pem"), "-----BEGIN CERTIFICATE-----\n"
                + b64.encodeToString(ks.getCertificate("server").getEncoded()) + "\n-----END CERTIFICATE-----\n");
        Path key = Files.writeString(dir.resolve("key.pem"), "-----BEGIN PRIVATE KEY-----\n"
                + b64.encodeToString(ks.getKey("server", pw).getEncoded()) + "\n-----END PRIVATE KEY-----\n");
        Files.delete(store);
        return new Path[] {cert, key};
    }
}
