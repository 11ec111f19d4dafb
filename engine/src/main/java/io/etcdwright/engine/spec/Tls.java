package io.etcdwright.engine.spec;

import java.util.Objects;

/**
 * Transport security: the PKI, and for clients and peers each whether they speak mutual TLS (the
 * default) or plain HTTP. Plain HTTP exists for clusters that run so today: etcdwright creates or
 * adopts them as they are and moves them to mutual TLS live when the spec says so.
 */
public record Tls(Pki pki, Transport transport) {

    /** How one side of etcd is spoken to; the names are the spec's. */
    public enum Mode {
        MUTUAL_TLS("mutual-tls"), PLAINTEXT("plaintext");

        private final String specName;

        Mode(String specName) {
            this.specName = specName;
        }

        public String specName() {
            return specName;
        }

        public static java.util.Optional<Mode> ofSpecName(String name) {
            for (Mode m : values()) {
                if (m.specName.equals(name)) {
                    return java.util.Optional.of(m);
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** {@code tls.transport}: clients (the client port) and peers (the peer port). */
    public record Transport(Mode clients, Mode peers) {
        public static final Transport MUTUAL_TLS = new Transport(Mode.MUTUAL_TLS, Mode.MUTUAL_TLS);

        public Transport {
            Objects.requireNonNull(clients, "clients");
            Objects.requireNonNull(peers, "peers");
        }
    }

    public Tls {
        Objects.requireNonNull(pki, "pki");
        Objects.requireNonNull(transport, "transport");
    }

    public Tls(Pki pki) {
        this(pki, Transport.MUTUAL_TLS);
    }

    public static Tls defaults() {
        return new Tls(Pki.defaults());
    }
}
