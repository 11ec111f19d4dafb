package io.etcdwright.engine.spec;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * The TCP ports every member listens on.
 *
 * @param metrics optional plain-HTTP listener for /metrics and /health; empty: none
 */
public record Ports(int client, int peer, OptionalInt metrics) {

    public static final int DEFAULT_CLIENT = 2379;
    public static final int DEFAULT_PEER = 2380;

    public Ports {
        Objects.requireNonNull(metrics, "metrics");
    }

    public static Ports defaults() {
        return new Ports(DEFAULT_CLIENT, DEFAULT_PEER, OptionalInt.empty());
    }
}
