package dev.loop.bench.dgram;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.bench.compare.LoopProbe;
import dev.loop.net.ConnectionHandler;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import dev.loop.net.Net;
import dev.loop.net.Unix;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDatagramChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.nio.NioDatagramChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The echo servers under test, one per process: {@code EchoServers IMPL udp|tcp|unix}. Prints
 * {@code LISTENING <port or path>}; then each line on standard input is answered with the number
 * of messages echoed so far (datagrams, or 64-byte units of a stream), the compare command's
 * {@link LoopProbe} lines with the loop's metrics, and the end of standard input ends the process. Every server runs on one thread.
 * <ul>
 *   <li>{@code loop-select}, {@code loop-epoll}: our loop, push style ({@code DatagramHandler},
 *       {@code ConnectionHandler});
 *   <li>{@code netty-nio}, {@code netty-epoll}: Netty's channels ({@code NioDatagramChannel},
 *       {@code EpollDatagramChannel}, {@code EpollServerDomainSocketChannel}), write in
 *       {@code channelRead}, flush in {@code channelReadComplete};
 *   <li>{@code jdk}: (UDP only) a blocking {@link DatagramChannel} receiving into and sending
 *       from one direct buffer.
 * </ul>
 */
public final class EchoServers {
    /** Messages echoed, published every so often by the serving thread (read by the stdin thread). */
    static final AtomicLong ECHOED = new AtomicLong();
    static final int UNIT = 64;

    private EchoServers() {
    }

    public static void main(String[] args) throws Exception {
        String impl = args[0];
        String transport = args[1];
        PrintStream out = System.out;
        SocketAddress at = switch (transport) {
            case "udp", "tcp" -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
            case "unix" -> UnixDomainSocketAddress.of(Files.createTempDirectory("echo").resolve("s"));
            default -> throw new IllegalArgumentException("transport udp, tcp or unix, not " + transport);
        };
        // every other line is answered with the count; the compare command's probe lines with the loop's metrics
        Thread control = new Thread(LoopProbe.stdinWatcher(out, line -> Long.toString(ECHOED.get())), "control");
        control.setDaemon(true);
        if (impl.startsWith("loop-")) {
            serveLoop(impl.substring(5), transport, at, out, control);
        } else if (impl.startsWith("netty-")) {
            if (impl.equals("netty-io_uring")) {
                serveNettyIoUring(transport, at, out, control);
            } else {
                serveNetty(impl.equals("netty-epoll"), transport, at, out, control);
            }
        } else if (impl.equals("jdk") && transport.equals("udp")) {
            serveJdk((InetSocketAddress) at, out, control);
        } else {
            throw new IllegalArgumentException("no server " + impl + " for " + transport);
        }
    }

    private static void listening(PrintStream out, Object where, Thread control) {
        out.println("LISTENING " + where);
        out.flush();
        control.start();
    }

    /** Counts {@code n} messages; one atomic add per call (per datagram, or per chunk read). */
    static void count(long n) {
        ECHOED.getAndAdd(n);
    }

    static void serveLoop(String backend, String transport, SocketAddress at, PrintStream out, Thread control)
            throws Exception {
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            LoopProbe.register(List.of(loop));
            ConnectionHandler echo = (conn, data) -> {
                count(data.remaining() / UNIT);
                conn.write(data);
            };
            switch (transport) {
                case "udp" -> {
                    DatagramEndpoint e = Datagrams.bind(loop, (InetSocketAddress) at);
                    e.setHandler((ep, data, sender) -> {
                        count(1);
                        ep.send(data, sender);
                    });
                    listening(out, e.localAddress().getPort(), control);
                }
                case "tcp" -> listening(out, Net.listen(loop, (InetSocketAddress) at, c -> c.setHandler(echo))
                        .localAddress().getPort(), control);
                default -> listening(out, Unix.listen(loop, at, c -> c.setHandler(echo)).localSocketAddress(), control);
            }
            loop.runForever();
        }
    }

    @ChannelHandler.Sharable
    static final class NettyEcho extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (msg instanceof DatagramPacket p) {
                count(1);
                ctx.write(new DatagramPacket(p.content(), p.sender()));
            } else {
                count(((ByteBuf) msg).readableBytes() / UNIT);
                ctx.write(msg);
            }
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }
    }

    /** Netty's io_uring transport, TCP only: the completion-based peer of {@code loop-io_uring}. */
    static void serveNettyIoUring(String transport, SocketAddress at, PrintStream out, Thread control)
            throws Exception {
        if (!transport.equals("tcp")) {
            throw new IllegalArgumentException(transport + ": netty-io_uring is measured over tcp only here");
        }
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, io.netty.channel.uring.IoUringIoHandler.newFactory());
        Channel ch = new ServerBootstrap().group(group).channel(io.netty.channel.uring.IoUringServerSocketChannel.class)
                .childOption(ChannelOption.TCP_NODELAY, true).childHandler(new NettyEcho())
                .bind(at).sync().channel();
        listening(out, ((InetSocketAddress) ch.localAddress()).getPort(), control);
        ch.closeFuture().sync();
    }

    static void serveNetty(boolean epoll, String transport, SocketAddress at, PrintStream out, Thread control)
            throws Exception {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Channel ch;
        Object where;
        switch (transport) {
            case "udp" -> {
                ch = new Bootstrap().group(group).channel(epoll ? EpollDatagramChannel.class : NioDatagramChannel.class)
                        .handler(new NettyEcho()).bind(at).sync().channel();
                where = ((InetSocketAddress) ch.localAddress()).getPort();
            }
            case "tcp" -> {
                if (!epoll) {
                    throw new IllegalArgumentException("tcp: netty-epoll only here (see the compare command)");
                }
                ch = new ServerBootstrap().group(group).channel(EpollServerSocketChannel.class)
                        .childOption(ChannelOption.TCP_NODELAY, true).childHandler(new NettyEcho())
                        .bind(at).sync().channel();
                where = ((InetSocketAddress) ch.localAddress()).getPort();
            }
            default -> {
                if (!epoll) {
                    throw new IllegalArgumentException("unix: netty-epoll only");
                }
                Path p = ((UnixDomainSocketAddress) at).getPath();
                ch = new ServerBootstrap().group(group).channel(EpollServerDomainSocketChannel.class)
                        .childHandler(new NettyEcho()).bind(new DomainSocketAddress(p.toString())).sync().channel();
                where = p;
            }
        }
        listening(out, where, control);
        ch.closeFuture().sync();
    }

    static void serveJdk(InetSocketAddress at, PrintStream out, Thread control) throws Exception {
        try (DatagramChannel ch = DatagramChannel.open()) {
            ch.bind(at);
            listening(out, ((InetSocketAddress) ch.getLocalAddress()).getPort(), control);
            ByteBuffer buf = ByteBuffer.allocateDirect(64 * 1024);
            while (true) {
                SocketAddress from = ch.receive(buf.clear());
                count(1);
                ch.send(buf.flip(), from);
            }
        }
    }
}
