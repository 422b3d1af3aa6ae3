package dev.loop.examples;

import dev.loop.Loop;
import dev.loop.LoopOptions;
import dev.loop.Loops;
import dev.loop.examples.io.ServerHost;
import dev.loop.net.DatagramEndpoint;
import dev.loop.net.Datagrams;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * {@code udp-echo [--port P] [--host H] [--backend NAME]}: answers each datagram to its sender
 * with the same bytes (a push-style handler). Runs until interrupted (Ctrl-C). Try it with
 * {@code socat - UDP:127.0.0.1:9999}.
 */
public final class UdpEcho {
    private UdpEcho() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) throws IOException {
        int port = Integer.parseInt(Main.option(args, "--port", "9999"));
        String backend = Main.option(args, "--backend", "select");
        InetAddress host = InetAddress.getByName(Main.option(args, "--host", "127.0.0.1"));
        try (Loop loop = Loops.open(LoopOptions.defaults().withBackend(backend))) {
            DatagramEndpoint endpoint = start(loop, new InetSocketAddress(host, port));
            String signal = ServerHost.runUntilSignal(loop, () -> {
                out.println("udp echo on " + endpoint.localAddress() + ", backend " + loop.backendName());
                out.flush();
            }, endpoint::close);
            out.println("stopping on SIG" + signal);
            out.flush();
        }
        return 0;
    }

    /** Binds {@code address}; the endpoint echoes while the loop runs. */
    public static DatagramEndpoint start(Loop loop, InetSocketAddress address) throws IOException {
        DatagramEndpoint endpoint = Datagrams.bind(loop, address);
        // send copies what the kernel cannot take at once, so the handler's buffer may be reused
        endpoint.setHandler((ep, data, sender) -> ep.send(data, sender));
        return endpoint;
    }
}
