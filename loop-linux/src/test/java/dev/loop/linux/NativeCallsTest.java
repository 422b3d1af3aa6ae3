package dev.loop.linux;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.invoke.MethodType;
import org.junit.jupiter.api.Test;

class NativeCallsTest {
    @Test
    void linksACLibraryFunctionOnJdk22AndLater() throws Throwable {
        assumeTrue(Runtime.version().feature() >= 22, "java.lang.foreign is a preview in 21");
        NativeCalls.Downcall getpid = NativeCalls.link("getpid", MethodType.methodType(int.class), false);
        assertTrue(getpid.available(), () -> "getpid: " + getpid.unavailable());
        assertEquals(ProcessHandle.current().pid(), (int) getpid.handle().invokeExact());
    }

    @Test
    void capturesErrnoWhereAsked() throws Throwable {
        assumeTrue(Runtime.version().feature() >= 22, "java.lang.foreign is a preview in 21");
        NativeCalls.Downcall close = NativeCalls.link("close", MethodType.methodType(int.class, int.class), true);
        assertTrue(close.available(), () -> "close: " + close.unavailable());
        java.nio.ByteBuffer state = java.nio.ByteBuffer.allocateDirect(NativeCalls.callStateSize())
                .order(java.nio.ByteOrder.nativeOrder());
        Object segment = NativeCalls.segmentOf().invokeExact((java.nio.Buffer) state);
        assertEquals(-1, (int) close.handle().invokeExact(segment, -1));
        assertEquals(9, state.getInt(NativeCalls.errnoOffset()), "EBADF for descriptor -1");
    }

    @Test
    void saysWhyAFunctionIsAbsent() {
        NativeCalls.Downcall none = NativeCalls.link("dev_loop_no_such_function", MethodType.methodType(int.class), false);
        assertFalse(none.available());
        assertNull(none.handle());
        assertTrue(Runtime.version().feature() < 22 ? none.unavailable().contains("JDK")
                : none.unavailable().contains("dev_loop_no_such_function"), none.unavailable());
    }

    @Test
    void refusesATypeWithNoCType() {
        assumeTrue(Runtime.version().feature() >= 22, "java.lang.foreign is a preview in 21");
        NativeCalls.Downcall bad = NativeCalls.link("getpid", MethodType.methodType(String.class), false);
        assertFalse(bad.available());
        assertTrue(bad.unavailable().contains("no C type"), bad.unavailable());
    }
}
