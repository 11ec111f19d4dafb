package io.etcdwright.engine.spec;

import java.util.Objects;

/** Transport security: always mutual TLS for peers and clients; only the PKI is configurable. */
public record Tls(Pki pki) {

    public Tls {
        Objects.requireNonNull(pki, "pki");
    }

    public static Tls defaults() {
        return new Tls(Pki.defaults());
    }
}
