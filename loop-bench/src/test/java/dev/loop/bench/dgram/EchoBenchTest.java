package dev.loop.bench.dgram;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EchoBenchTest {
    @Test
    void stracesSummaryIsReadByCallsPerSystemCallWithoutTheTotal() {
        List<String> summary = List.of(
                "% time     seconds  usecs/call     calls    errors syscall",
                "------ ----------- ----------- --------- --------- ----------------",
                " 51.20    0.101000           3     29000           recvfrom",
                " 48.00    0.095000           3     29000       120 sendto",
                "  0.80    0.001600           2       800           epoll_wait",
                "------ ----------- ----------- --------- --------- ----------------",
                "100.00    0.197600           3     58800       120 total");
        assertEquals(Map.of("recvfrom", 29000L, "sendto", 29000L, "epoll_wait", 800L), EchoBench.parseStrace(summary));
    }
}
