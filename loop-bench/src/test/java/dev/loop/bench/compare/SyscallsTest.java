package dev.loop.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SyscallsTest {
    /** strace 6.1's -c summary of an echo server over 1,000 ping-pong messages on 10 connections. */
    static final List<String> SUMMARY = List.of(
            "% time     seconds  usecs/call     calls    errors syscall",
            "------ ----------- ----------- --------- --------- ----------------",
            " 48.10    0.010512          10      1000           write",
            " 41.03    0.008967           8      1012        12 read",
            " 10.12    0.002211          22       100           epoll_wait",
            "  0.75    0.000164          41         4         1 futex",
            "------ ----------- ----------- --------- --------- ----------------",
            "100.00    0.021854          10      2116        13 total");

    @Test
    void parsesStraceSummaryMostFrequentFirstWithoutTheTotal() {
        Map<String, Long> calls = Syscalls.parse(SUMMARY);
        assertEquals(List.of("read", "write", "epoll_wait", "futex"), List.copyOf(calls.keySet()));
        assertEquals(1012L, calls.get("read"));
        assertEquals(4L, calls.get("futex"));
        assertFalse(calls.containsKey("total"));
    }

    @Test
    void perOperationWithTheLeadingCalls() {
        Syscalls s = Syscalls.of(Syscalls.parse(SUMMARY), 1000);
        assertEquals(2.116, s.perOp(), 1e-9);
        assertEquals("2.12 (read 1.01, write 1.00, epoll_wait 0.10)", s.describe()); // futex is below 0.05
        assertFalse(Syscalls.of(Syscalls.parse(SUMMARY), 0).measured());
        Syscalls none = Syscalls.unavailable("n/a (strace not installed)");
        assertEquals("n/a (strace not installed)", none.describe());
    }

    @Test
    void countsTheThreadsStraceAttached() {
        assertEquals(19, Syscalls.Tracer.attachedThreads("strace: Process 15567 attached with 19 threads"));
        assertEquals(1, Syscalls.Tracer.attachedThreads("strace: Process 15570 attached"));
        assertEquals(0, Syscalls.Tracer.attachedThreads("strace: Process 15570 detached"));
        assertEquals(0, Syscalls.Tracer.attachedThreads(
                "strace: attach: ptrace(PTRACE_SEIZE, 7380): Operation not permitted"));
        assertTrue(Syscalls.parse(List.of("strace: Process 1 attached")).isEmpty());
    }

    @Test
    void jitCompilerThreadsAreNotTracedAndEveryOtherThreadIs() {
        assertTrue(Syscalls.jitThread("C2 CompilerThre"));
        assertTrue(Syscalls.jitThread("C1 CompilerThre"));
        assertFalse(Syscalls.jitThread("main"));
        assertFalse(Syscalls.jitThread("VM Thread"));
        assertFalse(Syscalls.jitThread("GC Thread#0"));
        long self = ProcessHandle.current().pid();
        java.util.List<Long> traced = Syscalls.Tracer.tracedThreads(self);
        assertTrue(traced.contains(self), "the main thread's id is the process id: " + traced);
    }
}
