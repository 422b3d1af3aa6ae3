package dev.loop.net.transport;

import dev.loop.Loop;
import dev.loop.net.Watch;
import dev.loop.spi.IoWatch;
import dev.loop.spi.WatchIo;
import java.io.IOException;
import java.nio.channels.SelectableChannel;

/**
 * The engine's {@link Watch}; not thread-safe (loop thread only). Its own readiness receiver and
 * callback ({@link CoalescedReadiness}), as a connection is: the poll records the bits, the
 * program's callbacks run in the callback phase.
 */
public final class ChannelWatch extends CoalescedReadiness implements Watch, NetRegistry.Owned {
    private final NetRegistry net;
    private final String what;
    private IoWatch watch;
    private Runnable reader;
    private Runnable writer;
    private boolean open = true;

    private ChannelWatch(NetRegistry net, String what) {
        super(net.loop);
        this.net = net;
        this.what = what;
    }

    /** Watches {@code channel}, or {@code fd} when the channel is null. */
    public static ChannelWatch open(Loop loop, SelectableChannel channel, int fd) throws IOException {
        NetRegistry net = NetEntry.registry(loop);
        WatchIo io = NetEntry.watches(net);
        ChannelWatch w = new ChannelWatch(net, channel != null ? channel.toString() : "fd " + fd);
        try {
            w.watch = channel != null ? io.watch(channel, w) : io.watch(fd, w);
        } catch (UnsupportedOperationException e) {
            throw NetEntry.unsupported(net, e);
        }
        net.add(w);
        return w;
    }

    @Override
    protected void ready(int ops) {
        // an error or a hang-up goes to both callbacks, as asyncio does: their next call says which
        if ((ops & (READ | ERROR | HANGUP)) != 0 && open && reader != null) {
            call(reader);
        }
        if ((ops & (WRITE | ERROR | HANGUP)) != 0 && open && writer != null) {
            call(writer);
        }
    }

    private void call(Runnable callback) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            loop.callExceptionHandler("exception in a callback watching " + what, e, callback);
        }
    }

    @Override
    public void onReadable(Runnable callback) {
        checkOpen();
        watch.interest(callback != null, writer != null);
        reader = callback;
    }

    @Override
    public void onWritable(Runnable callback) {
        checkOpen();
        watch.interest(reader != null, callback != null);
        writer = callback;
    }

    private void checkOpen() {
        if (!open) {
            throw new IllegalStateException("no longer watching " + what);
        }
    }

    @Override
    public void close() {
        if (open) {
            open = false;
            reader = null;
            writer = null;
            watch.close();
            net.remove(this);
        }
    }

    @Override
    public void loopClosing(IOException why) {
        open = false;
        reader = null;
        writer = null;
        watch.close();
    }

    @Override
    public Loop loop() {
        return loop;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public String toString() {
        return "Watch[" + what + (open ? "" : ", closed") + "]";
    }
}
