package dev.loop.bench;

import io.netty.channel.IoEventLoop;
import io.netty.channel.IoEventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SingleThreadIoEventLoop;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.MockTicker;
import io.netty.util.concurrent.Ticker;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * The peer: one Netty 4.2 event loop, built the way Netty 4.2 recommends
 * ({@code new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory())}), on NIO or native epoll.
 */
final class NettyLoop {
    final IoEventLoopGroup group;
    final IoEventLoop loop;
    private final MockTicker ticker;

    NettyLoop(String transport) {
        this(transport, null);
    }

    /** With a mock ticker, the loop's scheduled tasks follow that clock instead of the system's. */
    NettyLoop(String transport, MockTicker ticker) {
        IoHandlerFactory factory = factory(transport);
        this.ticker = ticker;
        group = ticker == null ? new MultiThreadIoEventLoopGroup(1, factory) : new TickerGroup(factory, ticker);
        loop = group.next();
    }

    static IoHandlerFactory factory(String transport) {
        return switch (transport) {
            case "nio" -> NioIoHandler.newFactory();
            case "epoll" -> {
                Epoll.ensureAvailability();
                yield EpollIoHandler.newFactory();
            }
            default -> throw new IllegalArgumentException("unknown Netty transport: " + transport + " (nio, epoll)");
        };
    }

    void close() {
        Future<?> terminated = group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        // Graceful shutdown waits out its quiet period on the loop's clock: with a mock ticker that
        // clock stands still unless moved, so keep moving it until the loop has terminated.
        while (!terminated.awaitUninterruptibly(10, TimeUnit.MILLISECONDS)) {
            if (ticker != null) {
                ticker.advance(1, TimeUnit.SECONDS);
            }
        }
        terminated.syncUninterruptibly();
    }

    /**
     * A one-loop group whose loop reads time from the given ticker: Netty's own hook for fake time
     * ({@code AbstractScheduledEventExecutor.ticker()} is meant to be overridden). The ticker
     * reaches {@link #newChild} through the constructor's argument list because children are
     * created inside the super constructor.
     */
    private static final class TickerGroup extends MultiThreadIoEventLoopGroup {
        TickerGroup(IoHandlerFactory factory, Ticker ticker) {
            super(1, (Executor) null, factory, ticker);
        }

        @Override
        protected IoEventLoop newChild(Executor executor, IoHandlerFactory factory, Object... args) {
            Ticker ticker = (Ticker) args[0];
            return new SingleThreadIoEventLoop(this, executor, factory) {
                @Override
                public Ticker ticker() {
                    return ticker;
                }
            };
        }
    }
}
