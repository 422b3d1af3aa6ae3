package dev.loop.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteOrder;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** Reading a socket's drops from the kernel's table: the address as the table prints it, and the column. */
class KernelUdpDropsTest {
    // two rows of /proc/net/udp as Linux 6 prints them on x86-64; the second dropped 1234 datagrams
    private static final String OTHER = "  117: 00000000:0044 00000000:0000 07 00000000:00000000 00:00000000 00000000"
            + "     0        0 20771 2 0000000000000000 7";
    private static final String OURS = " 1022: 0100007F:A5A4 00000000:0000 07 00000000:00000900 00:00000000 00000000"
            + "     0        0 412345 2 0000000000000000 1234";

    @Test
    void anAddressIsKeyedAsTheTablePrintsIt() {
        Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "the table prints words as the machine stores them");
        assertEquals("0100007F:A5A4", KernelUdpDrops.key(new byte[] {127, 0, 0, 1}, 0xA5A4));
        assertEquals("00000000000000000000000001000000:0035", KernelUdpDrops.key(new byte[] {
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, 53), "::1");
        assertEquals("0000000000000000FFFF00000100007F:0001", KernelUdpDrops.key(new byte[] {
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, 127, 0, 0, 1}, 1), "::ffff:127.0.0.1");
    }

    @Test
    void onlyTheRowsOfTheAddressesAskedForCount() {
        Set<String> keys = Set.of("0100007F:A5A4");
        assertEquals(1234, KernelUdpDrops.drops(OURS, keys));
        assertEquals(0, KernelUdpDrops.drops(OTHER, keys));
        assertEquals(0, KernelUdpDrops.drops("   sl  local_address rem_address   st", keys), "the header, or a short line");
    }
}
