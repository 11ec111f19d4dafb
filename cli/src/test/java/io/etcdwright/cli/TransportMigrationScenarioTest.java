package io.etcdwright.cli;

import io.etcdwright.run.Layouts;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.config.MemberTransport;
import io.etcdwright.modules.config.MemberTransport.Clients;
import io.etcdwright.modules.config.MemberTransport.Peers;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Plain HTTP to mutual TLS, planned from the converged 3.5 recording with each member's config and
 * the member list put in a stage of the move (the config etcdwright writes for that stage, the peer
 * URLs etcd would list): each round, where an interrupted apply stopped, and the refusals.
 */
class TransportMigrationScenarioTest {
    static final MemberTransport PLAIN = new MemberTransport(Clients.PLAINTEXT, Peers.PLAINTEXT);
    static final MemberTransport ROUND_1 = new MemberTransport(Clients.BOTH, Peers.PLAINTEXT_WITH_KEYS);
    static final MemberTransport ROUND_2 = new MemberTransport(Clients.BOTH_ADVERTISING_TLS, Peers.TLS);
    static final String LEADER = PlannerScenarios.leaderOf("converged");

    @TempDir
    Path home;
    PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    @Test
    void aPlaintextClusterMovesToTlsInThreeRoundsOneMemberAtATimeLeaderLast() {
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", PLAIN, "h2", PLAIN, "h3", PLAIN), Set.of()), "three"));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        assertEquals(rounds(order, order, order), PlannerScenarios.shape(plan));
        Step first = plan.steps().get(0);
        assertEquals("round 1/3 (serve both): restart etcd serving clients http+https (both advertised), peers http (peer"
                + " certificate in place)", first.summary());
        assertTrue(first.reason().contains(order.get(0) + " serves clients http, peers http"), first.reason());
        assertEquals("round 2/3 (advertise TLS): member update peer URL to https, restart etcd serving clients http+https"
                + " (https advertised), peers https (mutual TLS)", plan.steps().get(3).summary());
        assertEquals("round 3/3 (drop plain HTTP): restart etcd serving clients https (mutual TLS), peers https (mutual TLS)",
                plan.steps().get(6).summary());
        // Every restart needs the others healthy and waits for health and a write through the member.
        for (Step s : plan.steps()) {
            assertEquals(1, s.preconditions().size(), s.id());
            assertEquals(2, s.postconditions().size(), s.id());
        }
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("clients still on http:// stop being served")),
                plan.warnings().toString());
    }

    @Test
    void aMoveToTlsGivesTheApiServerHttpsUrlsTheCaAndItsClientPairBeforeHttpIsDropped() {
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", PLAIN, "h2", PLAIN, "h3", PLAIN), Set.of()), "three"));
        String ca = "\"etcd CA for cluster scn\" (sha256 9f33051e)";
        assertEquals(List.of("~ kube-apiserver --etcd-servers: -http://10.77.0.12:2379 -http://10.77.0.11:2379"
                        + " -http://10.77.0.13:2379 +https://10.77.0.11:2379 +https://10.77.0.12:2379 +https://10.77.0.13:2379",
                "+ kube-apiserver --etcd-cafile: +/etc/etcd/pki/ca.crt (trusts " + ca + ")",
                "+ kube-apiserver --etcd-certfile: +/etc/etcd/pki/kube-apiserver-etcd-client.crt (issued by " + ca + ")",
                "+ kube-apiserver --etcd-keyfile: +/etc/etcd/pki/kube-apiserver-etcd-client.key (the key of the certificate"
                        + " issued by " + ca + ")"),
                plan.clients().stream().map(io.etcdwright.engine.plan.ClientChange::line).toList());
        assertTrue(plan.clients().stream().allMatch(c -> c.when().startsWith("this apply stops serving http:// in its last round")),
                plan.clients().toString());
        // Peers alone move: clients keep their URLs and files, kube-apiserver nothing.
        MemberTransport peersPlain = new MemberTransport(Clients.TLS, Peers.PLAINTEXT);
        assertEquals(List.of(), scenarios.plan(scenarioOf(facts(Map.of("h1", peersPlain, "h2", peersPlain, "h3", peersPlain),
                Set.of()), "three")).clients());
    }

    @Test
    void aMoveKilledInRoundTwoResumesWithTheMembersLeft() {
        // h1 moved its peer URL and restarted; h2 and h3 are done with round 1 only.
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", ROUND_2, "h2", ROUND_1, "h3", ROUND_1), Set.of("h1")), "three"));
        List<String> rest = PlannerScenarios.leaderLast(List.of("h2", "h3"), LEADER);
        List<String> all = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        assertEquals(rounds(List.of(), rest, all), PlannerScenarios.shape(plan));
    }

    @Test
    void aConfigWrittenButNotRestartedIntoIsDoneAgain() {
        // h1's round 2 config is on disk, but etcd still runs the one before and its peer URL is still http.
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", ROUND_2, "h2", ROUND_1, "h3", ROUND_1), Set.of(), Set.of("h1")),
                "three"));
        List<String> all = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        assertEquals(rounds(List.of(), all, all), PlannerScenarios.shape(plan));
        assertTrue(plan.steps().get(0).reason().contains("(config written, restart pending)"), plan.steps().get(0).reason());
    }

    @Test
    void aMoveKilledBetweenThePeerUrlUpdateAndTheRestartRestartsThatMember() {
        // h1's peer URL is https in the member list, but it still runs (and its config says) round 1.
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", ROUND_1, "h2", ROUND_1, "h3", ROUND_1), Set.of("h1")), "three"));
        List<String> all = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        assertEquals(rounds(List.of(), all, all), PlannerScenarios.shape(plan));
        Step h1 = plan.steps().stream().filter(s -> s.id().equals("h1/transport-round-2")).findFirst().orElseThrow();
        assertEquals("round 2/3 (advertise TLS): restart etcd serving clients http+https (https advertised), peers https (mutual TLS)",
                h1.summary());
    }

    @Test
    void clientsAloneMoveInThreeRoundsWithoutAPeerUrlChange() {
        MemberTransport clientsPlain = new MemberTransport(Clients.PLAINTEXT, Peers.TLS);
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", clientsPlain, "h2", clientsPlain, "h3", clientsPlain),
                Set.of("h1", "h2", "h3")), "three"));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        assertEquals(rounds(order, order, order), PlannerScenarios.shape(plan));
        assertTrue(plan.steps().stream().noneMatch(s -> s.summary().contains("member update")), PlannerScenarios.shape(plan).toString());
        assertEquals("round 1/3 (serve both): restart etcd serving clients http+https (both advertised), peers https (mutual TLS)",
                plan.steps().get(0).summary());
    }

    @Test
    void peersAloneMoveInTwoRounds() {
        MemberTransport peersPlain = new MemberTransport(Clients.TLS, Peers.PLAINTEXT);
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", peersPlain, "h2", peersPlain, "h3", peersPlain), Set.of()),
                "three"));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        assertEquals(rounds(order, order, null), PlannerScenarios.shape(plan));
        assertEquals("round 2/2 (advertise TLS): member update peer URL to https, restart etcd serving clients https (mutual TLS),"
                + " peers https (mutual TLS)", plan.steps().get(3).summary());
    }

    @Test
    void installedScheduledBackupsAreGivenTheHttpsEndpointOnceHttpIsDropped() {
        Path facts = facts(Map.of("h1", PLAIN, "h2", PLAIN, "h3", PLAIN), Set.of(), Set.of(), Set.of("h2"));
        Plan plan = scenarios.plan(scenarioOf(facts, "three-scheduled"));
        List<String> order = PlannerScenarios.leaderLast(List.of("h1", "h2", "h3"), LEADER);
        List<String> want = new ArrayList<>(rounds(order, order, order));
        // Only where a schedule is installed: a new one is converge's, after its checks of the hosts' tools.
        want.add("h2/schedule <- " + order.get(2) + "/transport-round-3");
        assertEquals(want, PlannerScenarios.shape(plan));
        assertTrue(plan.steps().get(want.size() - 1).diff().orElseThrow().after().contains("https://10.77.0.12:2379"),
                plan.steps().get(want.size() - 1).diff().toString());
    }

    @Test
    void aPlaintextSpecOnAPlaintextClusterHasNothingToDo() {
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", PLAIN, "h2", PLAIN, "h3", PLAIN), Set.of()), "three-plaintext"));
        assertEquals(List.of(), PlannerScenarios.shape(plan));
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("tls.transport.clients: plaintext")), plan.warnings().toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("tls.transport.peers: plaintext")), plan.warnings().toString());
    }

    @Test
    void tlsBackToPlainHttpIsRefusedForEveryMember() {
        Plan plan = scenarios.plan(new Scenario("converged", "three-plaintext"));
        assertEquals(List.of("refused transport-downgrade: member h1", "refused transport-downgrade: member h2",
                "refused transport-downgrade: member h3"), PlannerScenarios.shape(plan));
        assertTrue(plan.refusals().get(0).what().contains("etcdwright does not plan it"), plan.refusals().get(0).what());
    }

    /** A plaintext cluster's members do not use their CA, and a rotation's phases are proved by TLS handshakes. */
    @Test
    void aCaRotationOfAPlaintextClusterIsRefusedUntilItRunsTls() throws Exception {
        String plaintext = Files.readString(PlannerScenarios.DIR.resolve("three-plaintext.yaml"));
        Path spec = home.resolve("rotate-plaintext.yaml");
        Files.writeString(spec, plaintext.replace("    renewBeforeDays: 30\n", "    renewBeforeDays: 30\n    caGeneration: 2\n"));
        String named = spec.toAbsolutePath().toString();
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", PLAIN, "h2", PLAIN, "h3", PLAIN), Set.of()),
                named.substring(0, named.length() - ".yaml".length())));
        assertEquals(List.of("refused ca-rotation-without-tls: cluster scn"), PlannerScenarios.shape(plan));
        assertTrue(plan.refusals().get(0).what().contains("tls.transport keeps plain HTTP for clients and peers"),
                plan.refusals().get(0).what());
    }

    @Test
    void aVersionChangeDuringTheMoveIsRefused() {
        Plan plan = scenarios.plan(scenarioOf(facts(Map.of("h1", PLAIN, "h2", PLAIN, "h3", PLAIN), Set.of()), "three-3530"));
        assertEquals(List.of("refused transport-with-version-change: cluster scn"), PlannerScenarios.shape(plan));
    }

    /**
     * The shape of a move: round 1 on {@code one}, round 2 on {@code two}, round 3 on {@code three}
     * (null: no such round), each step after the one before.
     */
    private static List<String> rounds(List<String> one, List<String> two, List<String> three) {
        List<String> shape = new ArrayList<>();
        String previous = null;
        int number = 0;
        for (List<String> round : java.util.Arrays.asList(one, two, three)) {
            number++;
            if (round == null) {
                continue;
            }
            for (String h : round) {
                String id = h + "/transport-round-" + number;
                shape.add(previous == null ? id : id + " <- " + previous);
                previous = id;
            }
        }
        return shape;
    }

    private Path facts(Map<String, MemberTransport> stages, Set<String> httpsPeers) {
        return facts(stages, httpsPeers, Set.of());
    }

    private Path facts(Map<String, MemberTransport> stages, Set<String> httpsPeers, Set<String> pending) {
        return facts(stages, httpsPeers, pending, Set.of());
    }

    /**
     * The converged recording with each host's config as etcdwright writes it for {@code stages},
     * the member list's URLs as those stages advertise them (peer URLs https for {@code httpsPeers}),
     * and the config written after etcd started on {@code pending}.
     */
    private Path facts(Map<String, MemberTransport> stages, Set<String> httpsPeers, Set<String> pending, Set<String> scheduled) {
        try {
            DesiredState desired = DesiredStateLoader.load(PlannerScenarios.DIR.resolve("inventory.yaml"),
                    PlannerScenarios.DIR.resolve("three.yaml"));
            ObjectMapper json = new ObjectMapper();
            ObjectNode doc = (ObjectNode) json.readTree(PlannerScenarios.DIR.resolve("converged.json").toFile());
            List<EtcdConfigFile.Peer> everyone = desired.members().stream()
                    .map(m -> new EtcdConfigFile.Peer(m.name(), m.address())).toList();
            for (JsonNode host : doc.path("hosts")) {
                String name = host.path("host").asText();
                java.util.Optional<Member> found = desired.members().stream().filter(m -> m.name().equals(name)).findFirst();
                if (found.isEmpty()) {
                    continue; // recorded beside the cluster (h4, h5): not asked by this spec
                }
                Member member = found.get();
                ObjectNode probes = (ObjectNode) host.path("probes");
                String files = probes.path("etcd_files").asText();
                String recorded = new String(Base64.getDecoder().decode(line(files, "content=")), StandardCharsets.UTF_8);
                String token = EtcdConfigFile.tokenIn(recorded).orElseThrow();
                String config = EtcdConfigFile.render(new EtcdConfigFile.Peer(name, member.address()), everyone, "new", token,
                        Layouts.of(desired).withTransport(stages.get(name)), desired.spec().etcd().ports().metrics().orElse(0),
                        desired.spec().etcd().parsedVersion(), desired.spec().etcd().settings());
                String meta = line(files, "meta=");
                if (pending.contains(name)) {
                    double started = Double.parseDouble(line(probes.path("etcd_service").asText(), "started="));
                    meta = meta.substring(0, meta.lastIndexOf(' ') + 1) + String.format("%.6f", started + 60);
                }
                files = files.replace("meta=" + line(files, "meta="), "meta=" + meta)
                        .replace("sha256=" + line(files, "sha256="), "sha256=" + sha256(config) + "  -")
                        .replace("content=" + line(files, "content="),
                                "content=" + Base64.getEncoder().encodeToString(config.getBytes(StandardCharsets.UTF_8)));
                probes.put("etcd_files", files);
                String answers = probes.path("etcd_member").asText();
                for (Member m : desired.members()) {
                    MemberTransport stage = stages.get(m.name());
                    String address = m.address();
                    String peer = (httpsPeers.contains(m.name()) ? "https" : "http") + "://" + address + ":2380";
                    String clients = stage.clients() == Clients.BOTH
                            ? "\"http://" + address + ":2379\",\"https://" + address + ":2379\""
                            : "\"" + stage.clientScheme() + "://" + address + ":2379\"";
                    answers = answers.replace("\"peerURLs\":[\"https://" + address + ":2380\"]", "\"peerURLs\":[\"" + peer + "\"]")
                            .replace("\"clientURLs\":[\"https://" + address + ":2379\"]", "\"clientURLs\":[" + clients + "]");
                }
                probes.put("etcd_member", answers);
                if (scheduled.contains(name)) {
                    // A backup config of an earlier apply (its endpoint http://): the probe's output for that one file.
                    var probe = io.etcdwright.modules.cluster.EtcdProbes.of(Layouts.of(desired)).backupFiles();
                    ((ObjectNode) host.path("probe_arguments")).set(probe.name(), json.valueToTree(probe.arguments()));
                    String conf = "ENDPOINT=http://" + member.address() + ":2379\n";
                    probes.put(probe.name(), "@file " + io.etcdwright.modules.backup.schedule.ScheduleLayout.FILES.indexOf(
                            io.etcdwright.modules.backup.schedule.ScheduleLayout.CONF) + "\nmeta=600 root root 1795544990.000000\nsha256="
                            + sha256(conf) + "  -\ncontent=" + Base64.getEncoder().encodeToString(conf.getBytes(StandardCharsets.UTF_8))
                            + "\n");
                }
            }
            Path file = Files.createTempFile(home, "transport", ".json");
            json.writeValue(file.toFile(), doc);
            return file;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A scenario of facts written by {@link #facts}: named by absolute path, without the .json the scenarios add. */
    private static Scenario scenarioOf(Path facts, String spec) {
        String path = facts.toString();
        return new Scenario(path.substring(0, path.length() - ".json".length()), spec);
    }

    private static String line(String text, String prefix) {
        return text.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow().substring(prefix.length());
    }

    private static String sha256(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
