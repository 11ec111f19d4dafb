package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.FactsFile;
import io.etcdwright.run.Layouts;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.restore.WriteFence;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.source.SchemaCheck;
import io.etcdwright.engine.source.YamlDocument;
import io.etcdwright.engine.spec.BackupPolicy;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.backup.BackupCatalog;
import io.etcdwright.modules.backup.BackupName;
import io.etcdwright.modules.backup.EtcdClusterSpec;
import io.etcdwright.modules.backup.EtcdManagerMeta;
import io.etcdwright.modules.backup.EtcdwrightBackupMeta;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.backup.store.DirectoryStore;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every read command's {@code -o json} is what its schema in schemas/ says (docs/json-output.md):
 * the documents are built by the commands' own code from recorded facts (testbed/record-scenarios),
 * a real backup store, a real PKI directory, or by running the command itself; and each schema
 * refuses a document of another version or without one, so the check can fail.
 * (certs: CertsOutputTest.)
 */
class JsonOutputSchemaTest {
    static final ObjectMapper MAPPER = new ObjectMapper();

    @TempDir
    Path dir;

    @BeforeEach
    void workstationHome() throws Exception {
        System.setProperty("etcdwright.home", Files.createDirectories(dir.resolve("home")).toString());
    }

    @AfterEach
    void forgetHome() {
        System.clearProperty("etcdwright.home");
    }

    /** Valid against {@code schemas/<name>.schema.json}, and invalid with version 2 or without a version. */
    static JsonNode conforms(String name, String json) throws Exception {
        String schema = "/schemas/" + name + ".schema.json";
        Path file = Path.of(name + ".json");
        assertEquals(List.of(), SchemaCheck.check(YamlDocument.parse(file, json), schema), json);
        JsonNode node = MAPPER.readTree(json);
        assertEquals(1, node.path("version").asInt(), "version 1: " + json);
        ObjectNode other = node.deepCopy();
        other.put("version", 2);
        assertFalse(SchemaCheck.check(YamlDocument.parse(file, MAPPER.writeValueAsString(other)), schema).isEmpty(),
                name + ": a document of version 2 must fail the schema");
        ObjectNode none = node.deepCopy();
        none.remove("version");
        List<Problem> missing = SchemaCheck.check(YamlDocument.parse(file, MAPPER.writeValueAsString(none)), schema);
        assertTrue(missing.stream().anyMatch(p -> p.message().contains("'version'")), name + ": " + missing);
        ObjectNode unknown = node.deepCopy();
        unknown.put("unexpected_field", 1);
        assertFalse(SchemaCheck.check(YamlDocument.parse(file, MAPPER.writeValueAsString(unknown)), schema).isEmpty(),
                name + ": a field the schema does not list must fail it (a field added to the output needs the schema too)");
        assertFalse(json.contains("PRIVATE KEY"), name + ": no key material");
        return node;
    }

    // ---- plan ------------------------------------------------------------------------------

    @Test
    void planJsonOfRecordedScenariosMatchesItsSchema() throws Exception {
        PlannerScenarios scenarios = new PlannerScenarios(Files.createDirectories(dir.resolve("planner")));
        // Steps with diffs and conditions (config drift), a fresh create, no changes, and a refusal.
        List<PlannerScenarios.Scenario> cases = List.of(new PlannerScenarios.Scenario("config-drift", "three"),
                new PlannerScenarios.Scenario("fresh", "three").withPki(PlannerScenarios.Pki.NONE),
                new PlannerScenarios.Scenario("converged", "three"),
                new PlannerScenarios.Scenario("converged", "five"),
                new PlannerScenarios.Scenario("h3-crashed", "three"));
        List<String> shapes = new ArrayList<>();
        for (PlannerScenarios.Scenario s : cases) {
            Plan plan = scenarios.plan(s);
            JsonNode json = conforms("plan", PlanPrinter.json(plan));
            assertEquals(plan.steps().size(), json.path("steps").size());
            shapes.add(s.facts() + "/" + s.spec() + ": " + plan.steps().size() + " steps, " + plan.refusals().size() + " refusals");
        }
        assertTrue(shapes.get(0).startsWith("config-drift/three: ") && !shapes.get(0).contains(": 0 steps"), shapes.toString());
        assertTrue(shapes.get(2).contains(": 0 steps, 0 refusals"), shapes.toString());
        assertTrue(shapes.get(4).contains(": 0 steps, 1 refusals"), shapes.toString());
        // Warnings: a minor upgrade that first hops to the newest patch the source offers.
        Plan hop = scenarios.plan(new PlannerScenarios.Scenario("converged-34", "three"), "inventory",
                new io.etcdwright.modules.cluster.ConvergePlanner.VersionOptions(false,
                        v -> v.minor() == 4 ? Optional.of(io.etcdwright.engine.spec.Version.parse("3.4.35")) : Optional.empty()));
        JsonNode json = conforms("plan", PlanPrinter.json(hop));
        assertFalse(json.path("warnings").isEmpty(), json.path("warnings").toString());
    }

    @Test
    void aPlanThatChangesTheApiServersFlagsGivesBothSidesOfEachUnderClients() throws Exception {
        PlannerScenarios scenarios = new PlannerScenarios(Files.createDirectories(dir.resolve("planner")));
        JsonNode json = conforms("plan", PlanPrinter.json(scenarios.plan(new PlannerScenarios.Scenario("converged", "h1-h4"))));
        JsonNode servers = json.path("clients").path("kube_apiserver");
        assertEquals(1, servers.size(), servers.toString());
        assertEquals("etcd-servers", servers.get(0).path("flag").asText());
        assertTrue(servers.get(0).path("host").isNull(), "the spec names no control-plane host");
        assertEquals("https://10.77.0.12:2379,https://10.77.0.11:2379,https://10.77.0.13:2379", servers.get(0).path("before").asText());
        assertEquals("https://10.77.0.11:2379,https://10.77.0.14:2379", servers.get(0).path("after").asText());
        assertTrue(servers.get(0).path("holds_before").isNull() && servers.get(0).path("holds_after").isNull());
        assertTrue(servers.get(0).path("when").asText().startsWith("once this apply is done"), servers.get(0).toString());
        // Nothing changes for kube-apiserver: an empty object, still there for scripts.
        JsonNode drift = conforms("plan", PlanPrinter.json(scenarios.plan(new PlannerScenarios.Scenario("config-drift", "three"))));
        assertTrue(drift.path("clients").isObject() && drift.path("clients").isEmpty(), drift.path("clients").toString());
    }

    // ---- facts -----------------------------------------------------------------------------

    @Test
    void factsJsonOfRecordedFactsMatchesItsSchema() throws Exception {
        for (String name : List.of("converged", "fresh", "config-drift", "h3-crashed", "converged-34")) {
            String spec = name.endsWith("-34") ? "three-34" : "three";
            DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                    PlannerScenarios.DIR.resolve(spec + ".yaml"));
            EtcdProbes probes = EtcdProbes.of(Layouts.of(desired));
            ClusterRun.Facts facts = FactsFile.load(PlannerScenarios.DIR.resolve(name + ".json"), desired.spec().name(),
                    desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), probes);
            JsonNode json = conforms("facts", Json.write(FactsFile.document(desired.spec().name(), Instant.now(), facts, probes)));
            assertEquals(FactsFile.FORMAT, json.path("format").asText());
            if (name.equals("h3-crashed")) {
                assertFalse(json.path("hosts").get(2).path("reachable").asBoolean(), json.path("hosts").get(2).toString());
            }
        }
        // Without -f SPEC: every host of the inventory, no cluster, an unreachable one as a live gathering reports it.
        EtcdProbes probes = EtcdProbes.of(EtcdLayout.DEFAULT);
        DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                PlannerScenarios.DIR.resolve("three.yaml"));
        ClusterRun.Facts recorded = FactsFile.load(PlannerScenarios.DIR.resolve("fresh.json"), "scn",
                desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), probes);
        List<HostReport> reports = new ArrayList<>(recorded.reports());
        reports.add(new HostReport.Unreachable("h9", SshException.Reason.TIMEOUT, "connect timed out after 10 s"));
        ClusterRun.Facts withDown = ClusterRun.Facts.of(reports, probes, desired.inventory().hosts(),
                new LinkedHashSet<>(List.of("h1", "h2", "h3")));
        JsonNode json = conforms("facts", Json.write(FactsFile.document(null, Instant.now(), withDown, probes)));
        assertTrue(json.path("cluster").isNull());
        assertEquals("timeout", json.path("hosts").get(3).path("reason").asText(), json.path("hosts").toString());
    }

    // ---- status ----------------------------------------------------------------------------

    @Test
    void statusJsonFromTheMembersRecordedAnswersMatchesItsSchema() throws Exception {
        for (String name : List.of("converged", "h2-stopped", "h3-crashed", "converged-34")) {
            String spec = name.endsWith("-34") ? "three-34" : "three";
            DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                    PlannerScenarios.DIR.resolve(spec + ".yaml"));
            ClusterRun.Facts facts = FactsFile.load(PlannerScenarios.DIR.resolve(name + ".json"), desired.spec().name(),
                    desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(),
                    EtcdProbes.of(Layouts.of(desired)));
            ClusterStatus status = facts.cluster().orElseThrow();
            List<Map<String, Object>> rows = new ArrayList<>();
            status.members().forEach(m -> rows.add(StatusCommand.row(m, status, OptionalLong.of(300))));
            boolean healthy = status.members().stream().allMatch(MemberStatus::healthy);
            JsonNode json = conforms("status", Json.write(StatusCommand.document(desired.spec().name(), status, healthy,
                    status.members().stream().flatMap(m -> m.version().stream()).findFirst().map(v -> v.substring(0, 3) + ".0"),
                    rows, StatusCommand.alarmRows(status.alarms(), status), Optional.empty())));
            assertEquals(status.members().size(), json.path("members").size(), name);
            assertEquals(name.equals("converged") || name.equals("converged-34"), json.path("healthy").asBoolean(), name);
        }
        // A learner catching up, a member that does not answer, and the scheduled backups as the members' probes answer them.
        MemberStatus leader = StatusOutputTest.LEADER;
        MemberStatus learner = StatusOutputTest.member("h4", false, true, 400, 400);
        MemberStatus down = new MemberStatus("h3", "h3-id", List.of("https://h3:2379"), List.of("https://h3:2380"), false, false,
                Optional.empty(), OptionalLong.empty(), OptionalLong.empty(), OptionalLong.empty(), false,
                Optional.of("context deadline exceeded"), OptionalLong.empty());
        ClusterStatus status = new ClusterStatus(List.of(leader, learner, down), Optional.of("c1"), true);
        List<Map<String, Object>> rows = List.of(StatusCommand.row(leader, status, OptionalLong.of(300)),
                StatusCommand.row(learner, status, OptionalLong.empty()), StatusCommand.row(down, status, OptionalLong.empty()));
        Instant now = Instant.parse("2026-11-24T20:00:00Z");
        String run = Base64.getEncoder().encodeToString(("{\"result\":\"failed\",\"time\":\"2026-11-24T19:59:00Z\",\"member\":\"h1\","
                + "\"message\":\"failed while uploading (HTTP 403 AccessDenied)\",\"name\":\"2026-11-24T19:59:00Z-000001\","
                + "\"objectSize\":10}").getBytes(StandardCharsets.UTF_8));
        String success = Base64.getEncoder().encodeToString(("{\"result\":\"success\",\"time\":\"2026-11-24T19:49:00Z\",\"member\":\"h1\","
                + "\"message\":\"ok\",\"name\":\"2026-11-24T19:49:00Z-000001\",\"objectSize\":10}").getBytes(StandardCharsets.UTF_8));
        ScheduleHostFacts ran = ScheduleHostFacts.PROBE.parse("probed=1\ntool_bash=1\ntool_gzip=1\ntool_curl=1\ntool_openssl=1\n"
                + "timer_UnitFileState=enabled\ntimer_ActiveState=active\nlast-success=" + success + "\nlast-run=" + run
                + "\nfailed_runs=2\n");
        ScheduleHostFacts notInstalled = ScheduleHostFacts.PROBE.parse("probed=1\n");
        BackupPolicy.Schedule schedule = new BackupPolicy.Schedule(5, "offsite", Optional.empty());
        // A real NOSPACE on the leader beside etcdwright's write fence: both listed, only the fence marked as etcdwright's.
        List<Map<String, Object>> alarms = StatusCommand.alarmRows(List.of(new MemberFacts.Alarm(leader.id(), "NOSPACE"),
                new MemberFacts.Alarm(Long.toHexString(WriteFence.MEMBER_ID), "NOSPACE")), status);
        for (List<ScheduleHostFacts> hosts : List.of(List.of(ran, notInstalled), List.of(notInstalled))) {
            Map<String, Object> backups = BackupStatus.document(schedule, hosts, List.of("h3"), now);
            JsonNode json = conforms("status", Json.write(StatusCommand.document("demo", status, false, Optional.of("3.5.0"), rows,
                    alarms, Optional.of(backups))));
            assertEquals(leader.name(), json.path("alarms").get(0).path("member").asText());
            assertFalse(json.path("alarms").get(0).path("etcdwright_write_fence").asBoolean());
            assertTrue(json.path("alarms").get(1).path("etcdwright_write_fence").asBoolean());
            assertTrue(json.path("alarms").get(1).path("member").isNull());
            assertEquals(40, json.path("members").get(1).path("learner_progress").path("percent").asInt(), json.toString());
            assertEquals("context deadline exceeded", json.path("members").get(2).path("error").asText());
            assertEquals(List.of("h3"), List.of(json.path("backups").path("unreachable_hosts").get(0).asText()));
        }
        assertEquals("2026-11-24T19:49:00Z-000001",
                BackupStatus.document(schedule, List.of(ran), List.of(), now).get("newest"), "the probe's record was read");
        // A CA rotation under way: its phase and the bundle clients should trust.
        Map<String, Object> rotation = new java.util.LinkedHashMap<>();
        rotation.put("phase", "reissue");
        rotation.put("description", "2/3: every certificate reissued from the new CA (no restart)");
        rotation.put("trusted_ca_file", "/home/op/.etcdwright/clusters/demo/pki/rotation/ca-bundle.crt");
        JsonNode rotating = conforms("status", Json.write(StatusCommand.document("demo", status, false, Optional.of("3.5.0"), rows,
                List.of(), Optional.empty(), Optional.of(rotation))));
        assertEquals("reissue", rotating.path("ca_rotation").path("phase").asText());
        rotation.put("phase", "half-way");
        String unknownPhase = Json.write(StatusCommand.document("demo", status, false, Optional.of("3.5.0"), rows,
                List.of(), Optional.empty(), Optional.of(rotation)));
        org.junit.jupiter.api.Assertions.assertThrows(AssertionError.class, () -> conforms("status", unknownPhase),
                "the schema names the phases");
    }

    // ---- backups list ----------------------------------------------------------------------

    @Test
    void backupsListJsonOfARealStoreMatchesItsSchema() throws Exception {
        Path root = dir.resolve("store");
        Path data = Files.write(dir.resolve("etcd.backup.gz"), "not really gzip: the catalog does not open it".getBytes(StandardCharsets.UTF_8));
        EtcdManagerMeta em = new EtcdManagerMeta("3.5.16", Instant.parse("2026-11-24T20:15:03Z"),
                Optional.of(new EtcdClusterSpec(3, "3.5.16")));
        try (DirectoryStore store = new DirectoryStore(root)) {
            BackupCatalog catalog = new BackupCatalog(store);
            JsonNode empty = conforms("backups-list", Json.write(BackupsCommand.listDocument(store.describe(), catalog.list())));
            assertEquals(0, empty.path("backups").size());
            BackupName plain = catalog.nextName(Instant.parse("2026-11-24T20:15:03Z"));
            catalog.add(plain, data, em, new EtcdwrightBackupMeta(1, "demo", 4711, 120, 2_097_152, "ab".repeat(32), 40, false,
                    List.of(), "3.5.16", 3, Instant.parse("2026-11-24T20:15:03Z"), "h2"));
            BackupName sealed = catalog.nextName(Instant.parse("2026-11-24T21:15:03Z"));
            catalog.add(sealed, data, em, new EtcdwrightBackupMeta(1, "demo", 4800, -1, 2_097_152, "cd".repeat(32), 40, true,
                    List.of("sha256:fingerprint-of-ops-key"), "3.5.16", 3, Instant.parse("2026-11-24T21:15:03Z"), "h1"));
            // What etcd-manager leaves (no meta of ours), and a write cut short (no meta at all: incomplete).
            Path theirs = Files.createDirectories(root.resolve("2018-02-20T04:47:55Z-000002"));
            Files.write(theirs.resolve("etcd.backup.gz"), new byte[] {31, -117, 8, 0});
            Files.writeString(theirs.resolve("_etcd_backup.meta"), "{\"etcdVersion\": \"3.5.16\", \"timestamp\": \"1795637703\"}");
            store.put("2026-11-24T22:00:00Z-000004/etcd.backup.gz", data);

            JsonNode json = conforms("backups-list", Json.write(BackupsCommand.listDocument(store.describe(), catalog.list())));
            assertEquals("etcdwright-backups/1", json.path("format").asText());
            assertEquals(3, json.path("backups").size(), json.toString());
            assertTrue(json.path("backups").get(0).path("revision").isMissingNode(), "etcd-manager's: no meta of ours");
            assertEquals(-1, json.path("backups").get(2).path("keys").asInt(), "a scheduled backup that could not count");
            assertEquals("2026-11-24T22:00:00Z-000004", json.path("incomplete").get(0).asText());
        }
    }

    // ---- client-env, kube-apiserver-flags, validate, version: the commands themselves ------

    Path inventory() throws Exception {
        return Files.writeString(dir.resolve("hosts.yaml"), "all:\n  hosts:\n    h1: {ansible_host: 192.0.2.11}\n"
                + "    h2: {ansible_host: 192.0.2.12}\n");
    }

    Path spec(String extra) throws Exception {
        return Files.writeString(dir.resolve("spec.yaml"), "cluster: {name: demo}\netcd: {version: 3.5.16}\n"
                + "members: {hosts: [h1, h2]}\n" + extra);
    }

    @Test
    void clientEnvJsonMatchesItsSchema() throws Exception {
        Path pki = Files.createDirectories(dir.resolve("pki"));
        Files.createDirectories(pki.resolve("clients"));
        Files.writeString(pki.resolve("clients/admin.crt"), "not inspected by client-env\n");
        ClientEnvOutputTest.Run run = ClientEnvOutputTest.run("client-env", "-i", inventory().toString(), "-f",
                spec("tls: {pki: {dir: " + MAPPER.writeValueAsString(pki.toString()) + "}}\n").toString(), "-o", "json");
        assertEquals(0, run.code(), run.err());
        JsonNode json = conforms("client-env", run.out());
        assertEquals("https://192.0.2.11:2379,https://192.0.2.12:2379", json.path("ETCDCTL_ENDPOINTS").asText());
        assertEquals(pki.resolve("clients/admin.key").toString(), json.path("ETCDCTL_KEY").asText(), "the key's path, never the key");
    }

    @Test
    void kubeApiserverFlagsJsonMatchesItsSchema() throws Exception {
        Path spec = spec("");
        for (List<String> extra : List.of(List.<String>of(), List.of("--workstation-paths"))) {
            List<String> args = new ArrayList<>(List.of("kube-apiserver-flags", "-i", inventory().toString(), "-f", spec.toString(),
                    "-o", "json"));
            args.addAll(extra);
            ClientEnvOutputTest.Run run = ClientEnvOutputTest.run(args.toArray(String[]::new));
            assertEquals(0, run.code(), run.err());
            JsonNode json = conforms("kube-apiserver-flags", run.out());
            assertEquals("https://192.0.2.11:2379,https://192.0.2.12:2379", json.path("flags").path("etcd-servers").asText());
            assertTrue(json.path("flags").path("etcd-keyfile").asText().endsWith("kube-apiserver-etcd-client.key"), json.toString());
        }
    }

    /** tls.transport.clients plaintext: http:// endpoints and no TLS files, still as the schemas say; a warning on stderr. */
    @Test
    void aPlaintextClusterGetsHttpEndpointsAndNoCertificates() throws Exception {
        Path spec = spec("tls: {transport: {clients: plaintext, peers: plaintext}}\n");
        ClientEnvOutputTest.Run env = ClientEnvOutputTest.run("client-env", "-i", inventory().toString(), "-f", spec.toString(),
                "-o", "json");
        assertEquals(0, env.code(), env.err());
        JsonNode json = conforms("client-env", env.out());
        assertEquals("http://192.0.2.11:2379,http://192.0.2.12:2379", json.path("ETCDCTL_ENDPOINTS").asText());
        assertTrue(json.path("ETCDCTL_CACERT").isMissingNode() && json.path("ETCDCTL_CERT").isMissingNode(), json.toString());
        ClientEnvOutputTest.Run flags = ClientEnvOutputTest.run("kube-apiserver-flags", "-i", inventory().toString(), "-f",
                spec.toString(), "-o", "json");
        assertEquals(0, flags.code(), flags.err());
        JsonNode doc = conforms("kube-apiserver-flags", flags.out());
        assertEquals("{\"etcd-servers\":\"http://192.0.2.11:2379,http://192.0.2.12:2379\"}", doc.path("flags").toString());
        assertTrue(flags.err().contains("plaintext"), flags.err());
    }

    @Test
    void validateJsonListsEveryProblemAndKeepsItsExitCodes() throws Exception {
        Path inventory = inventory();
        ClientEnvOutputTest.Run ok = ClientEnvOutputTest.run("validate", "-i", inventory.toString(), "-f", spec("").toString(),
                "-o", "json");
        assertEquals(0, ok.code(), ok.err());
        JsonNode valid = conforms("validate", ok.out());
        assertTrue(valid.path("ok").asBoolean());
        assertEquals("demo", valid.path("cluster").asText());
        assertEquals("[\"h1\",\"h2\"]", valid.path("members").toString());

        // Two errors in the spec, one pasted key among them: stdout lists them, stderr says them as always, exit 1.
        Path bad = Files.writeString(dir.resolve("bad.yaml"), "cluster: {name: demo}\netcd:\n  version: 3.5.16\n"
                + "  ports: {client: \"-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBg\\n-----END PRIVATE KEY-----\"}\n"
                + "members: {hosts: [h1, h7]}\n");
        ClientEnvOutputTest.Run refused = ClientEnvOutputTest.run("validate", "-i", inventory.toString(), "-f", bad.toString(),
                "-o", "json");
        assertEquals(1, refused.code(), refused.out());
        JsonNode invalid = conforms("validate", refused.out());
        assertFalse(invalid.path("ok").asBoolean());
        assertTrue(invalid.path("cluster").isNull());
        assertTrue(invalid.path("problems").size() >= 2, invalid.toString());
        for (JsonNode p : invalid.path("problems")) {
            String line = p.path("file").asText() + ":" + p.path("line").asInt() + ":" + p.path("column").asInt() + ": "
                    + p.path("severity").asText() + ": " + p.path("field").asText() + ": ";
            assertTrue(refused.err().contains(line), line + " in\n" + refused.err());
            assertEquals(bad.toString(), p.path("file").asText());
        }
        assertTrue(refused.err().contains("No host was contacted"), refused.err());
        assertFalse(refused.out().contains("MIIEvQ"), refused.out());

        // Text stays as it was.
        ClientEnvOutputTest.Run text = ClientEnvOutputTest.run("validate", "-i", inventory.toString(), "-f", bad.toString());
        assertEquals(1, text.code());
        assertEquals("", text.out());
    }

    @Test
    void versionJsonMatchesItsSchema() throws Exception {
        ClientEnvOutputTest.Run run = ClientEnvOutputTest.run("version", "-o", "json");
        assertEquals(0, run.code(), run.err());
        JsonNode json = conforms("version", run.out());
        assertTrue(json.path("etcd_minors").size() >= 2, json.toString());
    }

    /** import's document, built by its own code from a reading recorded on a hand-made cluster, and for a refusal. */
    @Test
    void importJsonMatchesItsSchema() throws Exception {
        Map<String, String> flags = Map.of("name", "h1", "data-dir", "/var/lib/etcd",
                "advertise-client-urls", "https://10.82.0.11:2379", "initial-advertise-peer-urls", "https://10.82.0.11:2380",
                "cert-file", "/etc/etcd/pki/server.crt", "peer-cert-file", "/etc/etcd/pki/peer.crt",
                "key-file", "/etc/etcd/pki/server.key", "peer-key-file", "/etc/etcd/pki/peer.key",
                "trusted-ca-file", "/etc/etcd/pki/ca.crt", "client-cert-auth", "true");
        io.etcdwright.modules.adopt.ClusterImport.HostReading reading = new io.etcdwright.modules.adopt.ClusterImport.HostReading(
                new io.etcdwright.modules.adopt.ClusterImport.InventoryMember("h1", "h1", "10.82.0.11"),
                new io.etcdwright.modules.adopt.ForeignMember("h1", "h1:/etc/systemd/system/etcd.service", "/opt/bin/etcd", flags),
                "3.4.23", "-----BEGIN CERTIFICATE-----\n", List.of());
        io.etcdwright.modules.adopt.ClusterImport.Result result = io.etcdwright.modules.adopt.ClusterImport.describe("etcdadm-7d3f1a",
                List.of(reading), List.of(new io.etcdwright.modules.adopt.ClusterImport.ListedMember("h1",
                        List.of("https://10.82.0.11:2380"), false)), Optional.of(new io.etcdwright.modules.adopt.ClusterImport.TrustOnly(
                        "/ws/pki/ca.crt", io.etcdwright.modules.adopt.ClusterImport.fromHosts(List.of(reading), Optional.empty()))),
                io.etcdwright.modules.adopt.ClusterImport.Artifacts.DEFAULT);
        JsonNode json = conforms("import", Json.write(ImportCommand.document(Optional.of(result), Optional.of(Path.of("adopted.yaml")),
                Optional.of(dir.resolve("pki")), List.of("the CA key is on host h1 (/etc/etcd/pki/ca.key)"), List.of())));
        assertTrue(json.path("imported").asBoolean());
        assertTrue(json.path("trust_only").asBoolean(), json.toString());
        assertEquals("etcdadm-7d3f1a", json.path("cluster").asText());
        assertTrue(json.path("spec").asText().contains("dataDir: /var/lib/etcd"), json.toString());
        JsonNode refused = conforms("import", Json.write(ImportCommand.document(Optional.empty(), Optional.empty(), Optional.empty(),
                List.of(), List.of("h2: no etcd.service (LoadState not-found)"))));
        assertFalse(refused.path("imported").asBoolean());
        assertEquals(1, refused.path("refusals").size());
    }
}
