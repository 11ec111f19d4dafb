package io.etcdwright.modules.config;

import io.etcdwright.engine.spec.Tls;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.util.Map;
import java.util.Optional;

/**
 * What a member's config makes it speak on its client and peer ports. The spec knows two values
 * a side (plaintext, mutual TLS); a cluster moving from one to the other passes through the stages
 * in between, one member at a time, and the stage each member is in is read back from its config
 * file (the facts), so an interrupted move resumes where it stopped.
 *
 * @param clients the client port
 * @param peers   the peer port
 */
public record MemberTransport(Clients clients, Peers peers) {

    /** Client port stages, in the order a move to TLS passes them. */
    public enum Clients {
        /** http:// only. */
        PLAINTEXT,
        /** http:// and https:// on the same port (etcd multiplexes them), both advertised. */
        BOTH,
        /** Both served, https:// alone advertised: clients are told to move. */
        BOTH_ADVERTISING_TLS,
        /** https:// only, client certificates required. */
        TLS
    }

    /** Peer port stages, in the order a move to TLS passes them. */
    public enum Peers {
        /** http://, no peer certificates. */
        PLAINTEXT,
        /** http:// still, but with the peer certificate configured: it is what the member dials peers already on https with. */
        PLAINTEXT_WITH_KEYS,
        /** https://, peer certificates required. */
        TLS
    }

    public static final MemberTransport MUTUAL_TLS = new MemberTransport(Clients.TLS, Peers.TLS);

    public MemberTransport {
        java.util.Objects.requireNonNull(clients, "clients");
        java.util.Objects.requireNonNull(peers, "peers");
    }

    /** What the spec asks for. */
    public static MemberTransport of(Tls.Transport spec) {
        return new MemberTransport(spec.clients() == Tls.Mode.PLAINTEXT ? Clients.PLAINTEXT : Clients.TLS,
                spec.peers() == Tls.Mode.PLAINTEXT ? Peers.PLAINTEXT : Peers.TLS);
    }

    /** The scheme clients (etcdctl, kube-apiserver, this workstation) reach the members with: what is advertised. */
    public String clientScheme() {
        return clients == Clients.PLAINTEXT || clients == Clients.BOTH ? "http" : "https";
    }

    public String peerScheme() {
        return peers == Peers.TLS ? "https" : "http";
    }

    public boolean servesClientHttp() {
        return clients != Clients.TLS;
    }

    public boolean servesClientHttps() {
        return clients != Clients.PLAINTEXT;
    }

    /** The peer certificate is in the config (the member dials https peers with it, or serves https). */
    public boolean hasPeerKeys() {
        return peers != Peers.PLAINTEXT;
    }

    /** Whether every side is at least as far along towards TLS as {@code other}. */
    public boolean atLeast(MemberTransport other) {
        return clients.compareTo(other.clients) >= 0 && peers.compareTo(other.peers) >= 0;
    }

    public String describe() {
        return "clients " + describe(clients) + ", peers " + describe(peers);
    }

    private static String describe(Clients c) {
        return switch (c) {
            case PLAINTEXT -> "http";
            case BOTH -> "http+https (both advertised)";
            case BOTH_ADVERTISING_TLS -> "http+https (https advertised)";
            case TLS -> "https (mutual TLS)";
        };
    }

    private static String describe(Peers p) {
        return switch (p) {
            case PLAINTEXT -> "http";
            case PLAINTEXT_WITH_KEYS -> "http (peer certificate in place)";
            case TLS -> "https (mutual TLS)";
        };
    }

    /**
     * The stage a config file written by etcdwright (or one like it) puts a member in; empty when the
     * file has no URLs to tell by.
     */
    public static Optional<MemberTransport> readFrom(String configText) {
        Object loaded;
        try {
            loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(configText);
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        if (!(loaded instanceof Map<?, ?> doc)) {
            return Optional.empty();
        }
        String listenClient = String.valueOf(doc.get("listen-client-urls"));
        String advertiseClient = String.valueOf(doc.get("advertise-client-urls"));
        String listenPeer = String.valueOf(doc.get("listen-peer-urls"));
        if (doc.get("listen-client-urls") == null || doc.get("listen-peer-urls") == null) {
            return Optional.empty();
        }
        boolean http = listenClient.contains("http://");
        boolean https = listenClient.contains("https://");
        Clients clients = http && https ? (advertiseClient.contains("http://") ? Clients.BOTH : Clients.BOTH_ADVERTISING_TLS)
                : https ? Clients.TLS : Clients.PLAINTEXT;
        Peers peers = listenPeer.contains("https://") ? Peers.TLS
                : doc.get("peer-transport-security") instanceof Map<?, ?> ? Peers.PLAINTEXT_WITH_KEYS : Peers.PLAINTEXT;
        return Optional.of(new MemberTransport(clients, peers));
    }
}
