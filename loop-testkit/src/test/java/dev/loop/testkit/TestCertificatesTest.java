package dev.loop.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TestCertificatesTest {
    @Test
    void aStoreLeftByAnInterruptedAttemptDoesNotBlockTheNextOne() throws Exception {
        String host = "stale.example";
        Path leftover = TestCertificates.directory().resolve(host + ".p12");
        // What keytool leaves when it is cut short after writing the key pair: a store holding the alias.
        Files.write(leftover, new byte[] {1, 2, 3});
        TestCertificates.Identity id = TestCertificates.forHost(host);
        assertEquals(host, id.name());
        assertEquals(true, Files.readString(id.certificate()).contains("BEGIN CERTIFICATE"));
    }
}
