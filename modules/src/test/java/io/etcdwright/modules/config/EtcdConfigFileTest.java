package io.etcdwright.modules.config;

import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

class EtcdConfigFileTest {
    static final Version V35 = Version.parse("3.5.16");
    static final List<EtcdConfigFile.Peer> PEERS = List.of(new EtcdConfigFile.Peer("h1", "10.77.0.11"),
            new EtcdConfigFile.Peer("h2", "10.77.0.12"), new EtcdConfigFile.Peer("h3", "10.77.0.13"));

    @Test
    void rendersEtcdsOwnConfigWithMutualTlsAndTheMembersOwnUrls() {
        String text = EtcdConfigFile.render(PEERS.get(1), PEERS, "new", "demo-abc", EtcdLayout.DEFAULT, 2381, V35,
                Map.of("heartbeat-interval", 100, "election-timeout", 1000));
        Map<String, Object> doc = new Yaml().load(text);
        assertEquals("h2", doc.get("name"));
        assertEquals("https://10.77.0.12:2380", doc.get("listen-peer-urls"));
        assertEquals("https://10.77.0.12:2379,https://127.0.0.1:2379", doc.get("listen-client-urls"));
        assertEquals("h1=https://10.77.0.11:2380,h2=https://10.77.0.12:2380,h3=https://10.77.0.13:2380",
                doc.get("initial-cluster"));
        assertEquals("demo-abc", doc.get("initial-cluster-token"));
        assertEquals(true, doc.get("strict-reconfig-check"));
        assertEquals(100, doc.get("heartbeat-interval"));
        @SuppressWarnings("unchecked") Map<String, Object> client = (Map<String, Object>) doc.get("client-transport-security");
        assertEquals(true, client.get("client-cert-auth"));
        assertEquals("/etc/etcd/pki/server.crt", client.get("cert-file"));
        @SuppressWarnings("unchecked") Map<String, Object> peer = (Map<String, Object>) doc.get("peer-transport-security");
        assertEquals(true, peer.get("client-cert-auth"));
        assertEquals("/etc/etcd/pki/peer.key", peer.get("key-file"));
        assertEquals("http://10.77.0.12:2381,http://127.0.0.1:2381", doc.get("listen-metrics-urls"));
    }

    @Test
    void plaintextHasHttpUrlsAndNoTlsSettings() {
        EtcdLayout plain = EtcdLayout.DEFAULT.withTransport(new MemberTransport(MemberTransport.Clients.PLAINTEXT,
                MemberTransport.Peers.PLAINTEXT));
        Map<String, Object> doc = new Yaml().load(EtcdConfigFile.render(PEERS.get(1), PEERS, "new", "t", plain, 0, V35, Map.of()));
        assertEquals("http://10.77.0.12:2380", doc.get("listen-peer-urls"));
        assertEquals("http://10.77.0.12:2379,http://127.0.0.1:2379", doc.get("listen-client-urls"));
        assertEquals("http://10.77.0.12:2379", doc.get("advertise-client-urls"));
        assertEquals("h1=http://10.77.0.11:2380,h2=http://10.77.0.12:2380,h3=http://10.77.0.13:2380", doc.get("initial-cluster"));
        assertTrue(!doc.containsKey("client-transport-security") && !doc.containsKey("peer-transport-security"), doc.toString());
    }

    @Test
    void whileMovingToTlsClientsAreServedBothSchemesOnOnePort() {
        EtcdLayout both = EtcdLayout.DEFAULT.withTransport(new MemberTransport(MemberTransport.Clients.BOTH,
                MemberTransport.Peers.PLAINTEXT_WITH_KEYS));
        Map<String, Object> doc = new Yaml().load(EtcdConfigFile.render(PEERS.get(1), PEERS, "new", "t", both, 0, V35, Map.of()));
        assertEquals("http://10.77.0.12:2379,https://10.77.0.12:2379,http://127.0.0.1:2379,https://127.0.0.1:2379",
                doc.get("listen-client-urls"));
        assertEquals("http://10.77.0.12:2379,https://10.77.0.12:2379", doc.get("advertise-client-urls"));
        // Peers still listen on http, with the peer certificate to dial members already on https.
        assertEquals("http://10.77.0.12:2380", doc.get("listen-peer-urls"));
        assertTrue(doc.containsKey("client-transport-security") && doc.containsKey("peer-transport-security"), doc.toString());
    }

    @Test
    void everyStageIsReadBackFromTheFileItRenders() {
        for (MemberTransport.Clients c : MemberTransport.Clients.values()) {
            for (MemberTransport.Peers p : MemberTransport.Peers.values()) {
                MemberTransport stage = new MemberTransport(c, p);
                String text = EtcdConfigFile.render(PEERS.get(0), PEERS, "new", "t", EtcdLayout.DEFAULT.withTransport(stage), 2381, V35,
                        Map.of());
                assertEquals(stage, MemberTransport.readFrom(text).orElseThrow(), text);
            }
        }
        assertTrue(MemberTransport.readFrom("name: x\n").isEmpty());
        assertTrue(MemberTransport.readFrom("{{not yaml").isEmpty());
    }

    @Test
    void isDeterministicWhateverTheOrderOfSettings() {
        Map<String, Object> a = new java.util.LinkedHashMap<>();
        a.put("snapshot-count", 1000);
        a.put("heartbeat-interval", 200);
        String one = EtcdConfigFile.render(PEERS.get(0), PEERS, "new", "t", EtcdLayout.DEFAULT, 0, V35, a);
        String two = EtcdConfigFile.render(PEERS.get(0), PEERS, "new", "t", EtcdLayout.DEFAULT, 0, V35, new TreeMap<>(a));
        assertEquals(one, two);
        assertTrue(one.startsWith("# Managed by etcdwright"));
    }

    @Test
    void readsTheTokenBackSoABootstrappedClusterKeepsIt() {
        String text = EtcdConfigFile.render(PEERS.get(0), PEERS, "new", "demo-1f2e", EtcdLayout.DEFAULT, 0, V35, Map.of());
        assertEquals("demo-1f2e", EtcdConfigFile.tokenIn(text).orElseThrow());
        assertTrue(EtcdConfigFile.tokenIn("name: x\n").isEmpty());
    }

    @Test
    void ipv6AddressesAreBracketedInUrls() {
        EtcdConfigFile.Peer v6 = new EtcdConfigFile.Peer("h1", "fd00::11");
        Map<String, Object> doc = new Yaml().load(EtcdConfigFile.render(v6, List.of(v6), "new", "t", EtcdLayout.DEFAULT, 0, V35, Map.of()));
        assertEquals("https://[fd00::11]:2380", doc.get("listen-peer-urls"));
    }

    /** etcd 3.4 serves its gRPC gateway from a config file only when told (seen: 404 on every /v3/... on 3.4.23). */
    @Test
    void etcd34IsToldToServeTheGatewayThatEtcdwrightAsks() {
        Map<String, Object> v34 = new Yaml().load(EtcdConfigFile.render(PEERS.get(0), PEERS, "new", "t", EtcdLayout.DEFAULT, 0,
                Version.parse("3.4.23"), Map.of()));
        assertEquals(true, v34.get("enable-grpc-gateway"));
        Map<String, Object> v35 = new Yaml().load(EtcdConfigFile.render(PEERS.get(0), PEERS, "new", "t", EtcdLayout.DEFAULT, 0, V35,
                Map.of()));
        assertFalse(v35.containsKey("enable-grpc-gateway"), "3.5 and later serve it by default: " + v35);
    }
}
