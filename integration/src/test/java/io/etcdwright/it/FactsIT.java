package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** 'etcdwright facts' through the real CLI on real hosts. */
class FactsIT {
    static final String INV = Testbed.INVENTORY.toString();

    @TempDir
    Path tmp;

    @BeforeAll
    static void hosts() {
        Testbed.up(3);
    }

    @AfterAll
    static void cleanUp() {
        Testbed.down();
    }

    @Test
    void reportsEveryHostWithTheFieldsOperatorsNeed() throws Exception {
        Cli.Run run = Cli.run("facts", "-i", INV, "--output", "json");
        assertEquals(0, run.exitCode(), run.all());
        JsonNode hosts = new ObjectMapper().readTree(run.out()).path("hosts");
        assertEquals(3, hosts.size());
        for (int i = 0; i < 3; i++) {
            JsonNode h = hosts.get(i);
            assertEquals("h" + (i + 1), h.path("host").asText());
            assertTrue(h.path("reachable").asBoolean());
            assertEquals("debian", h.path("system").path("os_id").asText());
            assertEquals("12", h.path("system").path("os_version").asText());
            assertEquals("amd64", h.path("system").path("architecture").asText());
            assertEquals("systemd", h.path("system").path("init_system").asText());
            assertTrue(Math.abs(h.path("clock_skew_ms").asLong()) < 2000, "same machine, same clock: " + h);
            assertTrue(h.path("etcd").path("etcd_version").isNull(), "bare host: no etcd");
            assertEquals("inactive", h.path("service").path("active_state").asText());
            assertFalse(h.path("data_dir").path("exists").asBoolean());
            assertTrue(h.path("data_dir").path("free_bytes").asLong() > 0);
            assertTrue(h.path("config").path("sha256").isNull());
            assertEquals(0, h.path("certificates").size());
        }
    }

    /**
     * A kubespray-style INI inventory with group_vars/ and host_vars/, written as an operator would
     * for these hosts: validate, facts and plan see exactly what they see through the YAML one.
     */
    @Test
    void anAnsibleIniInventoryWithGroupAndHostVarsDrivesFactsAndPlanAsTheYamlOneDoes() throws Exception {
        Path ini = Files.createDirectories(tmp.resolve("mycluster"));
        Files.writeString(ini.resolve("inventory.ini"), """
                [all]
                h1 ansible_host=%s ip=%s
                h2 ansible_host=%s
                h3 ansible_host=%s

                [kube_control_plane]
                h[1:3]

                [etcd:children]
                kube_control_plane

                [k8s_cluster:children]
                kube_control_plane
                """.formatted(Testbed.address(1), Testbed.address(1), Testbed.address(2), Testbed.address(3)));
        Files.createDirectories(ini.resolve("group_vars"));
        Files.writeString(ini.resolve("group_vars/all.yml"), "ansible_user: root\nansible_ssh_private_key_file: "
                + Testbed.KEY + "\netcdwright_known_hosts_file: " + Testbed.KNOWN_HOSTS + "\n");
        Files.createDirectories(ini.resolve("host_vars"));
        Files.writeString(ini.resolve("host_vars/h3.yml"), "ansible_port: 22\n");
        Path spec = tmp.resolve("three.yaml");
        Files.writeString(spec, Testbed.example("three-node.yaml"));
        String kubespray = ini.resolve("inventory.ini").toString();

        assertEquals(0, Cli.run("validate", "-i", kubespray, "-f", spec.toString()).exitCode());
        ObjectMapper json = new ObjectMapper();
        JsonNode fromIni = json.readTree(Cli.run("facts", "-i", kubespray, "-f", spec.toString(), "-o", "json").out()).path("hosts");
        JsonNode fromYaml = json.readTree(Cli.run("facts", "-i", INV, "-f", spec.toString(), "-o", "json").out()).path("hosts");
        assertEquals(3, fromIni.size(), fromIni.toString());
        for (int i = 0; i < 3; i++) {
            for (String field : new String[] {"host", "address", "reachable", "system", "etcd", "service"}) {
                assertEquals(withoutUptime(fromYaml.get(i).path(field)), withoutUptime(fromIni.get(i).path(field)),
                        field + " of h" + (i + 1));
            }
        }
        Testbed.freshWorkstationHome();
        try {
            JsonNode planIni = json.readTree(Cli.run("plan", "-i", kubespray, "-f", spec.toString(), "-o", "json").out());
            JsonNode planYaml = json.readTree(Cli.run("plan", "-i", INV, "-f", spec.toString(), "-o", "json").out());
            assertTrue(planIni.path("steps").size() > 10, planIni.toString());
            assertEquals(summaries(planYaml), summaries(planIni));
        } finally {
            Testbed.forgetWorkstationHome();
        }
    }

    private static java.util.List<String> summaries(JsonNode plan) {
        java.util.List<String> steps = new java.util.ArrayList<>();
        plan.path("steps").forEach(s -> steps.add(s.path("id").asText() + ": " + s.path("summary").asText()));
        return steps;
    }

    @Test
    void seesAnInstalledEtcdItsCertificatesAndItsConfig() throws Exception {
        Testbed.freshWorkstationHome();
        try {
            // The example with its artifact URLs pointed at this testbed's release server (it names the default testbed's).
            java.nio.file.Path specFile = Testbed.scratch("single").resolve("single-node.yaml");
            java.nio.file.Files.writeString(specFile, Testbed.example("single-node.yaml"));
            String spec = specFile.toString();
            assertEquals(0, Cli.run("apply", "-i", INV, "-f", spec, "--yes").exitCode());
            Cli.Run run = Cli.run("facts", "-i", INV, "-f", spec, "-o", "json");
            assertEquals(0, run.exitCode(), run.all());
            JsonNode hosts = new ObjectMapper().readTree(run.out()).path("hosts");
            assertEquals(1, hosts.size(), "-f limits facts to the cluster's members");
            JsonNode h1 = hosts.get(0);
            assertEquals("3.5.16", h1.path("etcd").path("etcd_version").asText());
            assertEquals("3.5.16", h1.path("etcd").path("etcdutl_version").asText());
            assertEquals("active", h1.path("service").path("active_state").asText());
            assertTrue(h1.path("data_dir").path("has_member").asBoolean());
            assertTrue(h1.path("member").path("member_id").asText().matches("[0-9a-f]+"));
            assertEquals(64, h1.path("config").path("sha256").asText().length());
            JsonNode server = null;
            for (JsonNode c : h1.path("certificates")) {
                if (c.path("path").asText().endsWith("/server.crt")) {
                    server = c;
                }
            }
            assertTrue(server != null, h1.toString());
            assertTrue(server.path("subject").asText().contains("CN=h1"), server.toString());
            assertTrue(server.path("ip_addresses").toString().contains(Testbed.address(1)), server.toString());
            assertTrue(server.path("days_until_expiry").asInt() > 360);
            Cli.Run text = Cli.run("facts", "-i", INV, "-f", spec);
            assertTrue(text.out().contains("3.5.16 active"), text.out());
            assertEquals(0, Cli.run("destroy", "-i", INV, "-f", spec, "--yes", "--wipe-data").exitCode());
        } finally {
            Testbed.forgetWorkstationHome();
        }
    }

    @Test
    void anUnreachableHostIsReportedWithItsReasonAndTheOthersStillAre() throws Exception {
        Testbed.run("crash", "3");
        try {
            Cli.Run run = Cli.run("facts", "-i", INV, "-o", "json", "--connect-timeout", "2");
            assertEquals(1, run.exitCode(), "exit 1 when any host is unreachable");
            JsonNode hosts = new ObjectMapper().readTree(run.out()).path("hosts");
            assertTrue(hosts.get(0).path("reachable").asBoolean());
            assertTrue(hosts.get(1).path("reachable").asBoolean());
            assertFalse(hosts.get(2).path("reachable").asBoolean());
            assertTrue(hosts.get(2).path("message").asText().contains(Testbed.address(3) + ":22"), hosts.get(2).toString());
            assertFalse(run.all().contains("Exception"), "no stack trace");
        } finally {
            Testbed.run("boot", "3");
        }
    }

    @Test
    void unknownHostKeysAreRefusedUnlessTrustOnFirstUseIsGiven() throws Exception {
        Path inv = tmp.resolve("hosts.yaml");
        Files.writeString(inv, Files.readString(Testbed.INVENTORY));
        Path known = tmp.resolve("known_hosts");   // the inventory names 'known_hosts' beside it
        // A named known_hosts that does not exist is a typo until proven otherwise: refused at
        // validate time, at the line that names it, before any host is contacted.
        Cli.Run missing = Cli.run("facts", "-i", inv.toString(), "--limit", "h1", "--accept-new-host-keys");
        assertEquals(1, missing.exitCode());
        assertTrue(missing.err().contains(inv + ":") && missing.err().contains("etcdwright_known_hosts_file")
                && missing.err().contains("does not exist"), missing.all());
        Files.writeString(known, "");   // trust on first use starts from an empty file
        Cli.Run refused = Cli.run("facts", "-i", inv.toString(), "--limit", "h1");
        assertEquals(1, refused.exitCode());
        assertTrue(refused.out().contains("is not in " + known), refused.out());
        assertTrue(refused.out().contains("--accept-new-host-keys"), refused.out());

        Cli.Run accepted = Cli.run("facts", "-i", inv.toString(), "--limit", "h1", "--accept-new-host-keys");
        assertEquals(0, accepted.exitCode(), accepted.all());
        assertTrue(Files.readString(known).startsWith(Testbed.address(1) + " ssh-ed25519 "));

        // The same address now answering with another host's key: refused, with or without the flag.
        String h2Key = Files.readAllLines(Testbed.KNOWN_HOSTS).stream().filter(l -> l.startsWith(Testbed.address(2) + " ")).findFirst().orElseThrow();
        Files.writeString(known, h2Key.replace(Testbed.address(2), Testbed.address(1)) + "\n");
        Cli.Run changed = Cli.run("facts", "-i", inv.toString(), "--limit", "h1", "--accept-new-host-keys");
        assertEquals(1, changed.exitCode());
        assertTrue(changed.out().contains("HAS CHANGED"), changed.out());
    }

    /**
     * The facts without the host's uptime: the two gatherings compared run one after the other, and
     * the uptime in whole seconds differs between them whenever a second boundary falls in between.
     */
    private static JsonNode withoutUptime(JsonNode facts) {
        if (!facts.isObject() || !facts.has("uptime_seconds")) {
            return facts;
        }
        com.fasterxml.jackson.databind.node.ObjectNode copy = ((com.fasterxml.jackson.databind.node.ObjectNode) facts).deepCopy();
        copy.remove("uptime_seconds");
        return copy;
    }
}
