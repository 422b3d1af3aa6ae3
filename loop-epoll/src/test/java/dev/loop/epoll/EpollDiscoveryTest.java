package dev.loop.epoll;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.loop.Loop;
import dev.loop.Loops;
import dev.loop.ProviderInfo;
import org.junit.jupiter.api.Test;

class EpollDiscoveryTest {

    @Test
    void isTheBestAvailableBackendOnLinux() {
        assumeTrue(System.getProperty("os.name").toLowerCase().contains("linux"), "epoll exists on Linux only");
        ProviderInfo epoll = Loops.providers().stream().filter(p -> p.name().equals("epoll")).findFirst().orElseThrow();
        assertTrue(epoll.available(), "epoll should load here: " + epoll.reason());
        try (Loop loop = Loops.open()) {
            assertEquals("epoll", loop.backendName());
        }
    }

    @Test
    void reportsNettysReasonWhenUnavailable() {
        // The provider defers to Netty's own verdict; on this machine both agree.
        EpollBackendProvider p = new EpollBackendProvider();
        assertEquals(io.netty.channel.epoll.Epoll.isAvailable(), p.unavailabilityCause() == null);
    }
}
