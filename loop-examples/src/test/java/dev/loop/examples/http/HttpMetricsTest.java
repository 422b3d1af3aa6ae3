package dev.loop.examples.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loop.testkit.Cell;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code http-server --metrics}: the loops' metrics at {@code /metrics} in Prometheus' text format,
 * scraped by the JDK's HTTP client as a Prometheus server would, on every backend with sockets.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class HttpMetricsTest {
    private static final InetSocketAddress ANY_PORT = new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);

    @ParameterizedTest
    @MethodSource("dev.loop.testkit.Matrix#groups")
    void metricsAreServedInPrometheusTextAndCountTheServersOwnTraffic(Cell cell) throws Exception {
        HttpServer.Config c = HttpServer.Config.defaults().withAddress(ANY_PORT).withBackend(cell.backend())
                .withLoops(2).withMetrics(true);
        try (HttpServer server = HttpServer.start(c);
             HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build()) {
            String base = "http://127.0.0.1:" + server.address().getPort();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> hello = client.send(HttpRequest.newBuilder(URI.create(base + "/plaintext"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(200, hello.statusCode());
            }
            HttpResponse<String> scrape = client.send(HttpRequest.newBuilder(URI.create(base + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, scrape.statusCode());
            assertTrue(scrape.headers().firstValue("content-type").orElse("").startsWith("text/plain; version=0.0.4"),
                    scrape.headers().toString());
            String text = scrape.body();
            assertTrue(text.contains("# TYPE loop_accepts_total counter"), text);
            // one series per loop, each named and tagged with the backend
            Matcher accepts = Pattern.compile("(?m)^loop_accepts_total\\{backend=\"" + cell.backend()
                    + "\",loop=\"(loop-\\d+-" + cell.backend() + ")\"} (\\S+)$").matcher(text);
            double total = 0;
            int series = 0;
            while (accepts.find()) {
                series++;
                total += Double.parseDouble(accepts.group(2));
            }
            assertEquals(2, series, text);
            assertEquals(1.0, total, "the client kept one connection alive for every request: " + text);
            assertTrue(Pattern.compile("(?m)^loop_bytes_in_bytes_total\\{[^}]*} [1-9]").matcher(text).find(), text);
            assertTrue(text.contains("loop_scheduling_lag_seconds{"), text);
            assertTrue(text.contains("quantile=\"0.99\""), text);
        }
    }
}
