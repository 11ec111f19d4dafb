package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whether a member's running etcd has its data-corruption checks on, as the process itself says:
 * the settings it logs at start ("starting an etcd server"), from the journal of the unit's current
 * invocation, so a file on disk that the process never read does not count.
 */
final class CorruptionChecks {
    private static final ObjectMapper JSON = new ObjectMapper();

    private CorruptionChecks() {
    }

    /** Asserts both checks on for host {@code host}'s member, which runs {@code version} (3.5 and newer). */
    static void assertOn(int host, String version) throws IOException {
        String line = Testbed.ssh(host, "journalctl -u etcd --no-pager -o cat"
                + " _SYSTEMD_INVOCATION_ID=\"$(systemctl show -p InvocationID --value etcd)\""
                + " | grep -m1 '\"msg\":\"starting an etcd server\"'").strip();
        JsonNode start = JSON.readTree(line);
        assertTrue(start.path("etcd-version").asText().equals(version), "h" + host + " runs " + version + ": " + line);
        if (version.startsWith("3.5.")) {
            // 3.5 spells them as experimental flags, and logs what it read under their plain names.
            assertTrue(start.path("initial-corrupt-check").asBoolean(false)
                    && start.path("compact-check-time-enabled").asBoolean(false), "h" + host + ": " + line);
        } else {
            // 3.6 and 3.7: feature gates (3.6 still logs the deprecated initial-corrupt-check field, false).
            List<String> gates = List.of(start.path("feature-gates").asText("").split(","));
            assertTrue(gates.contains("InitialCorruptCheck=true") && gates.contains("CompactHashCheck=true"),
                    "h" + host + ": " + line);
        }
    }
}
