package io.etcdwright.cli;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WarmUpTest {
    @Test
    void commandsThatReachHostsWarmTheHandshakeTheOthersOnlyTheSchemas() {
        assertTrue(WarmUp.reachesHosts(new String[]{"plan", "-i", "hosts.yaml", "-f", "spec.yaml"}));
        assertTrue(WarmUp.reachesHosts(new String[]{"apply", "-i", "hosts.yaml", "-f", "specs/"}));
        assertFalse(WarmUp.reachesHosts(new String[]{"plan", "-i", "hosts.yaml", "-f", "spec.yaml", "--facts", "f.json"}),
                "an offline plan contacts no host");
        assertFalse(WarmUp.reachesHosts(new String[]{"plan", "--facts=f.json", "-i", "hosts.yaml", "-f", "spec.yaml"}));
        assertFalse(WarmUp.reachesHosts(new String[]{"validate", "-i", "hosts.yaml", "-f", "spec.yaml"}));
        assertTrue(WarmUp.readsInput(new String[]{"validate", "-i", "hosts.yaml", "-f", "spec.yaml"}));
        assertFalse(WarmUp.readsInput(new String[]{"version"}));
        assertFalse(WarmUp.readsInput(new String[]{}));
        assertFalse(WarmUp.readsInput(new String[]{"plan", "--help"}));
        assertFalse(WarmUp.reachesHosts(new String[]{"plan", "--help"}));
    }
}
