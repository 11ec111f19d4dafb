package io.etcdwright.engine.plan;

import java.util.Objects;
import java.util.Optional;

/**
 * A flag a client of the cluster is started with that the plan changes, and when the operator
 * changes it: a client of the cluster is no host the plan reaches (kube-apiserver reads its flags
 * and its files only at start), so the plan can only say what to give it, and when.
 *
 * @param client      the client, as the spec's {@code clients} names it (kube-apiserver)
 * @param host        the host it runs on, when the spec names its hosts; empty: wherever it runs
 * @param flag        the flag, without dashes (etcd-servers)
 * @param before      its value as the cluster is now; empty: not given now (a cluster on plain HTTP has no CA file)
 * @param after       its value once this plan is applied; empty: no longer given
 * @param holdsBefore for a flag naming a file: what that file holds now (which CAs it trusts, which CA issued it)
 * @param holdsAfter  what it holds then: a file can change while its path stays the same
 * @param when        what the operator does, and when, written for the operator
 */
public record ClientChange(String client, Optional<String> host, String flag, Optional<String> before, Optional<String> after,
                           Optional<String> holdsBefore, Optional<String> holdsAfter, String when) {
    public ClientChange {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(flag, "flag");
        Objects.requireNonNull(before, "before");
        Objects.requireNonNull(after, "after");
        Objects.requireNonNull(holdsBefore, "holdsBefore");
        Objects.requireNonNull(holdsAfter, "holdsAfter");
        Objects.requireNonNull(when, "when");
        if (before.equals(after) && holdsBefore.equals(holdsAfter)) {
            throw new IllegalArgumentException("--" + flag + " of " + client + " does not change: " + before.orElse("(not given)"));
        }
    }

    /**
     * The plan line: {@code ~ kube-apiserver --etcd-servers: -https://10.0.0.13:2379 +https://10.0.0.14:2379}.
     * A list value (comma-separated) shows the items it loses and gains; a file whose path stays
     * shows what it held and what it will hold.
     */
    public String line() {
        String symbol = before.isEmpty() ? "+" : after.isEmpty() ? "-" : "~";
        String head = symbol + " " + client + host.map(h -> " on " + h).orElse("") + " --" + flag + ": ";
        if (before.equals(after)) {
            return head + before.orElse("") + ": -" + holdsBefore.orElse("(nothing)") + " +" + holdsAfter.orElse("(nothing)");
        }
        java.util.List<String> was = items(before);
        java.util.List<String> will = items(after);
        StringBuilder line = new StringBuilder(head);
        was.stream().filter(v -> !will.contains(v)).forEach(v -> line.append('-').append(v).append(' '));
        will.stream().filter(v -> !was.contains(v)).forEach(v -> line.append('+').append(v).append(' '));
        holdsAfter.filter(h -> !holdsAfter.equals(holdsBefore)).ifPresent(h -> line.append('(').append(h).append(')'));
        return line.toString().trim();
    }

    private static java.util.List<String> items(Optional<String> value) {
        return value.map(v -> java.util.List.of(v.split(","))).orElse(java.util.List.of());
    }
}
