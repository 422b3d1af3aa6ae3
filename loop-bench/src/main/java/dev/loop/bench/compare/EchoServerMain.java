package dev.loop.bench.compare;

import dev.loop.net.ConnectionHandler;
import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.net.Net;
import dev.loop.net.Server;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.uring.IoUring;
import io.netty.channel.uring.IoUringIoHandler;
import io.netty.channel.uring.IoUringServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * The echo server under test, in a process of its own: {@code EchoServerMain --impl IMPL [--port P]
 * [--timers NAME]}. It prints {@code LISTENING <port>} once it accepts connections, or
 * {@code UNSUPPORTED <why>} and exits with status 3 when the implementation cannot serve sockets
 * here (a backend without sockets yet), and exits when its standard input ends, so it never
 * outlives the command that started it.
 *
 * <p>Every implementation serves from one thread (the loop's, Netty's one event loop) except the
 * virtual-thread server, which has a virtual thread per connection on the JDK's scheduler; all set
 * TCP_NODELAY and echo whatever arrives as soon as it arrives.
 * <ul>
 *   <li>{@code loop-<backend>}: our loop, push-style reading (a {@link ConnectionHandler} writes back
 *       each chunk, and stops reading while the peer does not take the echo);
 *   <li>{@code netty-nio}, {@code netty-epoll}: Netty's echo server as its examples write it
 *       ({@code write} in {@code channelRead}, {@code flush} in {@code channelReadComplete}), one
 *       {@code MultiThreadIoEventLoopGroup(1, ...)} for accepting and serving, pooled buffers;
 *   <li>{@code jdk-vthreads}: a blocking {@link ServerSocket} and a virtual thread per connection
 *       reading into a 64 KiB array and writing it back.
 * </ul>
 */
public final class EchoServerMain {
    public static final int UNSUPPORTED_EXIT = 3;

    private EchoServerMain() {
    }

    public static void main(String[] args) throws Exception {
        String impl = null;
        int port = 0;
        String timers = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--impl" -> impl = args[i + 1];
                case "--port" -> port = Integer.parseInt(args[i + 1]);
                case "--timers" -> timers = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (impl == null) {
            System.err.println("usage: EchoServerMain --impl loop-<backend>|netty-nio|netty-epoll|netty-io_uring|jdk-vthreads"
                    + " [--port P] [--timers NAME]");
            System.exit(2);
        }
        exitWhenStdinCloses();
        InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
        PrintStream out = System.out;
        if (impl.startsWith("loop-")) {
            serveLoop(impl.substring("loop-".length()), timers, address, out);
        } else if (impl.equals("netty-nio") || impl.equals("netty-epoll") || impl.equals("netty-io_uring")) {
            serveNetty(impl.substring("netty-".length()), address, out);
        } else if (impl.equals("jdk-vthreads")) {
            serveVirtualThreads(address, out);
        } else {
            throw new IllegalArgumentException("unknown implementation " + impl);
        }
    }

    /** Ends the process when its standard input ends, and answers the {@link LoopProbe}'s lines meanwhile. */
    static void exitWhenStdinCloses() {
        LoopProbe.watchStdin(System.out, null);
    }

    /** Push style: every chunk goes straight back; a peer that does not read is not read either. */
    static final ConnectionHandler ECHO = (conn, data) -> {
        conn.write(data);
        if (!conn.isWritable()) {
            conn.pauseReading();
            conn.drain().onDone(f -> conn.resumeReading());
        }
    };

    static void serveLoop(String backend, String timers, InetSocketAddress address, PrintStream out) throws IOException {
        LoopOptions options = LoopOptions.defaults().withBackend(backend);
        if (timers != null) {
            options = options.withTimers(timers);
        }
        try (Loop loop = Loops.open(options)) {
            Server server;
            try {
                server = Net.listen(loop, address, c -> c.setHandler(ECHO));
                LoopProbe.register(java.util.List.of(loop));
            } catch (UnsupportedOperationException e) {
                out.println("UNSUPPORTED " + e.getMessage());
                out.flush();
                System.exit(UNSUPPORTED_EXIT);
                return;
            }
            out.println("LISTENING " + server.localAddress().getPort());
            out.flush();
            loop.runForever();
        }
    }

    /** Netty's echo handler: shared, stateless. */
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

    static void serveNetty(String transport, InetSocketAddress address, PrintStream out) throws InterruptedException {
        Throwable why = switch (transport) {
            case "epoll" -> Epoll.isAvailable() ? null : Epoll.unavailabilityCause();
            case "io_uring" -> IoUring.isAvailable() ? null : IoUring.unavailabilityCause();
            default -> null;
        };
        if (why != null) {
            out.println("UNSUPPORTED Netty " + transport + " unavailable: " + why);
            out.flush();
            System.exit(UNSUPPORTED_EXIT);
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, switch (transport) {
            case "epoll" -> EpollIoHandler.newFactory();
            case "io_uring" -> IoUringIoHandler.newFactory();
            default -> NioIoHandler.newFactory();
        });
        Class<? extends ServerChannel> type = switch (transport) {
            case "epoll" -> EpollServerSocketChannel.class;
            case "io_uring" -> IoUringServerSocketChannel.class;
            default -> NioServerSocketChannel.class;
        };
        Channel ch = new ServerBootstrap()
                .group(group)
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new NettyEcho())
                .bind(address).sync().channel();
        out.println("LISTENING " + ((InetSocketAddress) ch.localAddress()).getPort());
        out.flush();
        ch.closeFuture().sync();
    }

    static void serveVirtualThreads(InetSocketAddress address, PrintStream out) throws IOException {
        try (ServerSocket server = new ServerSocket()) {
            server.setReuseAddress(true);
            server.bind(address, 1024);
            out.println("LISTENING " + server.getLocalPort());
            out.flush();
            while (true) {
                Socket s = server.accept();
                Thread.ofVirtual().name("echo").start(() -> echo(s));
            }
        }
    }

    private static void echo(Socket s) {
        try (s) {
            s.setTcpNoDelay(true);
            InputStream in = s.getInputStream();
            OutputStream o = s.getOutputStream();
            byte[] buf = new byte[64 * 1024];
            int n;
            while ((n = in.read(buf)) >= 0) {
                o.write(buf, 0, n);
            }
        } catch (IOException ignored) {
            // the client went away
        }
    }
}
