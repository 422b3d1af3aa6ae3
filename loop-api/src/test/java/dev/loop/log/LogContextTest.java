package dev.loop.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnixDomainSocketAddress;
import org.junit.jupiter.api.Test;

/** The one form of a record's context: what operators grep for, and nothing built for a record not written. */
class LogContextTest {

    @Test
    void theLoopAlwaysThenTheTaskThenTheConnectionLocalFirst() throws Exception {
        InetSocketAddress local = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 8080);
        InetSocketAddress remote = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 41234);
        assertEquals("[loop-3-epoll task=Task-7 conn=127.0.0.1:8080->127.0.0.1:41234] boom",
                LogContext.of("loop-3-epoll").task("Task-7").connection(local, remote).line("boom"));
        assertEquals("[loop-3-epoll] boom", LogContext.of("loop-3-epoll").line("boom"));
    }

    @Test
    void addressesAsOperatorsTypeThemNotAsInetSocketAddressPrintsThem() throws Exception {
        InetSocketAddress named = new InetSocketAddress(InetAddress.getByName("localhost"), 80);
        assertTrue(named.toString().contains("/"), "the JDK's form has the name and a slash: " + named);
        InetSocketAddress v6 = new InetSocketAddress(InetAddress.getByName("::1"), 8080);
        assertEquals("[l conn=" + named.getAddress().getHostAddress() + ":80->[0:0:0:0:0:0:0:1]:8080] m",
                LogContext.of("l").connection(named, v6).line("m"));
        assertEquals("[l conn=example.invalid:443] m",
                LogContext.of("l").connection(InetSocketAddress.createUnresolved("example.invalid", 443), null).line("m"));
        assertEquals("[l server=/run/app.sock] m",
                LogContext.of("l").server(UnixDomainSocketAddress.of("/run/app.sock")).line("m"));
    }

    @Test
    void theFirstTaskAndTheFirstPlaceGivenWin() {
        InetSocketAddress a = InetSocketAddress.createUnresolved("a", 1);
        InetSocketAddress b = InetSocketAddress.createUnresolved("b", 2);
        // what a report is about is given before its source and the running task: it is the most specific
        assertEquals("[l task=Task-1 conn=a:1] m",
                LogContext.of("l").task("Task-1").connection(a, null).server(b).task("Task-2").line("m"));
    }

    @Test
    void aSubjectDescribesItselfAndOneThatFailsIsLeftOut() {
        LogContext.Subject task = c -> c.task("Task-9");
        LogContext.Subject closed = c -> {
            throw new IllegalStateException("socket closed");
        };
        assertEquals("[l task=Task-9] m", LogContext.of("l").about(closed).about("not a subject").about(task).line("m"));
    }
}
