package dev.loop.bench.compare;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * Netty's HTTP/1.1 codec as the http workload's peer, in a process of its own:
 * {@code NettyHttpServerMain --transport epoll|nio [--threads N]}. One
 * {@code MultiThreadIoEventLoopGroup(1, ...)} (N: as many event loops, connections dealt out among
 * them by the one that accepts, Netty's usual way) accepts and serves on 127.0.0.1 and a free port, prints {@code LISTENING <port>} (or
 * {@code UNSUPPORTED <why>} and exits with status 3 when native epoll is asked for and missing),
 * and exits when its standard input ends.
 *
 * <p>It answers the way TechEmpower's Netty entry does: {@link HttpServerCodec} in front of one
 * handler that writes each response in {@code channelRead} and flushes in
 * {@code channelReadComplete}, so pipelined requests are answered in order with one flush per read
 * batch. {@code GET /plaintext} is "Hello, World!" from a shared buffer and {@code GET /json} is
 * {@code {"message":"Hello, World!"}} encoded per request, as our http-server answers them, with
 * {@code Server}, {@code Date} (formatted once a second), {@code Content-Type} and
 * {@code Content-Length}; keep-alive unless the request says otherwise.
 */
public final class NettyHttpServerMain {
    private NettyHttpServerMain() {
    }

    public static void main(String[] args) throws Exception {
        String transport = null;
        int threads = 1;
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--transport")) {
                transport = args[i + 1];
            } else if (args[i].equals("--threads")) {
                threads = Integer.parseInt(args[i + 1]);
            } else {
                throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        if (!("epoll".equals(transport) || "nio".equals(transport))) {
            System.err.println("usage: NettyHttpServerMain --transport epoll|nio [--threads N]");
            System.exit(2);
        }
        EchoServerMain.exitWhenStdinCloses();
        PrintStream out = System.out;
        boolean epoll = transport.equals("epoll");
        if (epoll && !Epoll.isAvailable()) {
            out.println("UNSUPPORTED Netty epoll unavailable: " + Epoll.unavailabilityCause());
            out.flush();
            System.exit(EchoServerMain.UNSUPPORTED_EXIT);
        }
        Channel ch = start(epoll, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), threads);
        out.println("LISTENING " + ((InetSocketAddress) ch.localAddress()).getPort());
        out.flush();
        ch.closeFuture().sync();
    }

    /** Binds the server on one event loop; the channel's close future ends it. */
    static Channel start(boolean epoll, InetSocketAddress address) throws InterruptedException {
        return start(epoll, address, 1);
    }

    /** Binds the server on {@code threads} event loops; the channel's close future ends it. */
    static Channel start(boolean epoll, InetSocketAddress address, int threads) throws InterruptedException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(threads,
                epoll ? EpollIoHandler.newFactory() : NioIoHandler.newFactory());
        Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
        Channel ch = new ServerBootstrap()
                .group(group)
                .channel(type)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel c) {
                        c.pipeline().addLast(new HttpServerCodec(), new Handler(new DateLine()));
                    }
                })
                .bind(address).sync().channel();
        ch.closeFuture().addListener(f -> group.shutdownGracefully());
        return ch;
    }

    /** The {@code Date} value for the current second, formatted once per second. Not thread-safe: one per connection. */
    static final class DateLine {
        private static final DateTimeFormatter IMF_FIXDATE =
                DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.US).withZone(ZoneOffset.UTC);
        private long second = Long.MIN_VALUE;
        private AsciiString value;

        AsciiString now() {
            long s = System.currentTimeMillis() / 1000;
            if (s != second) {
                second = s;
                value = AsciiString.cached(IMF_FIXDATE.format(Instant.ofEpochSecond(s)));
            }
            return value;
        }
    }

    /** Routes each request to its response; writes in {@code channelRead}, flushes per read batch. */
    static final class Handler extends ChannelInboundHandlerAdapter {
        private static final byte[] HELLO = "Hello, World!".getBytes(StandardCharsets.US_ASCII);
        private static final ByteBuf PLAINTEXT = Unpooled.unreleasableBuffer(
                Unpooled.directBuffer(HELLO.length).writeBytes(HELLO)).asReadOnly();
        private static final AsciiString SERVER = AsciiString.cached("netty");
        private static final AsciiString TEXT = AsciiString.cached("text/plain");
        private static final AsciiString JSON = AsciiString.cached("application/json");
        private static final AsciiString PLAINTEXT_LENGTH = AsciiString.cached(Integer.toString(HELLO.length));

        private final DateLine date;

        Handler(DateLine date) {
            this.date = date;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof HttpRequest req)) {
                // the request's (empty) content and its LastHttpContent: nothing to answer
                ReferenceCountUtil.release(msg);
                return;
            }
            try {
                if (req.decoderResult().isFailure()) {
                    respond(ctx, req, HttpResponseStatus.BAD_REQUEST, Unpooled.EMPTY_BUFFER, TEXT, false);
                    return;
                }
                boolean keepAlive = HttpUtil.isKeepAlive(req);
                if (req.method() != HttpMethod.GET) {
                    respond(ctx, req, HttpResponseStatus.METHOD_NOT_ALLOWED, Unpooled.EMPTY_BUFFER, TEXT, keepAlive);
                } else if (req.uri().equals("/plaintext")) {
                    respond(ctx, req, HttpResponseStatus.OK, PLAINTEXT.duplicate(), TEXT, keepAlive);
                } else if (req.uri().equals("/json")) {
                    respond(ctx, req, HttpResponseStatus.OK, json(ctx, "Hello, World!"), JSON, keepAlive);
                } else {
                    respond(ctx, req, HttpResponseStatus.NOT_FOUND, Unpooled.EMPTY_BUFFER, TEXT, keepAlive);
                }
            } finally {
                ReferenceCountUtil.release(msg);
            }
        }

        /** {@code {"message":"..."}}, encoded for this request. */
        private static ByteBuf json(ChannelHandlerContext ctx, String message) {
            ByteBuf b = ctx.alloc().buffer(32);
            b.writeBytes("{\"message\":\"".getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < message.length(); i++) {
                char c = message.charAt(i);
                if (c == '"' || c == '\\') {
                    b.writeByte('\\').writeByte(c);
                } else if (c < 0x20) {
                    ByteBufUtil.writeAscii(b, String.format(Locale.ROOT, "\\u%04x", (int) c));
                } else {
                    ByteBufUtil.writeUtf8(b, String.valueOf(c));
                }
            }
            return b.writeByte('"').writeByte('}');
        }

        private void respond(ChannelHandlerContext ctx, HttpRequest req, HttpResponseStatus status, ByteBuf body,
                             AsciiString type, boolean keepAlive) {
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body, false);
            HttpHeaders h = res.headers();
            h.set(HttpHeaderNames.SERVER, SERVER);
            h.set(HttpHeaderNames.DATE, date.now());
            h.set(HttpHeaderNames.CONTENT_TYPE, type);
            // the plaintext length is encoded once; other bodies' per response
            h.set(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes() == HELLO.length ? PLAINTEXT_LENGTH
                    : Integer.toString(body.readableBytes()));
            if (!keepAlive) {
                h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
                ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
            } else {
                if (req.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
                    h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                }
                ctx.write(res, ctx.voidPromise());
            }
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
}
