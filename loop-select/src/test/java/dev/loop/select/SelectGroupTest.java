package dev.loop.select;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.loop.Loop;
import dev.loop.LoopGroup;
import dev.loop.LoopOptions;
import dev.loop.net.AcceptMode;
import dev.loop.net.GroupServer;
import dev.loop.testkit.LoopGroupContract;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What {@link AcceptMode#AUTO} chooses on select: one loop accepts and hands connections to the others. The rest of the group's
 * behaviour is the conformance suite's ({@link LoopGroupContract}).
 */
@Timeout(value = 20, unit = TimeUnit.SECONDS)
class SelectGroupTest {

    @Test
    void autoChoosesTheModeThisBackendBalancesBest() throws Exception {
        try (LoopGroup group = LoopGroup.open(2, LoopOptions.defaults().withBackend("select"))) {
            Map<Loop, AtomicInteger> perLoop = new ConcurrentHashMap<>();
            GroupServer server = LoopGroupContract.echo(group, AcceptMode.AUTO, perLoop);
            assertEquals(AcceptMode.HANDOFF, server.mode());
            LoopGroupContract.talk(server.localAddress(), 8);
            assertEquals(8, perLoop.values().stream().mapToInt(AtomicInteger::get).sum());
            server.close(true);
        }
    }
}
