package io.etcdwright.modules.restore;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.modules.EtcdLayout;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a restore leaves next to a member's data directory (root-only): which snapshot the member
 * is being restored from, under which cluster token, and how far it got: {@code stopped} (written
 * just before etcd is stopped for the restore), {@code restored} (its data is the snapshot's), or
 * {@code proven} (the restored cluster was checked). An apply killed half-way finds it on the next
 * run: the members already restored from the same snapshot keep their data and the others are
 * restored under the same token (the member and cluster ids derive from it, so one cluster comes
 * up); a stopped or restored marker is a restore in flight, which the next apply finishes from the
 * snapshot staged on the members ({@link #snapshot} says what it holds). Once proven, a new restore
 * of the same file is a new restore, with a new token.
 *
 * @param snapshot what the snapshot holds, for a restore resumed without the file at hand; empty in
 *                 markers written before it was recorded
 */
public record RestoreMarker(String snapshotSha256, String token, State state, Optional<String> movedTo,
                            Optional<Snapshot> snapshot) {
    public enum State { STOPPED, RESTORED, PROVEN }

    /** The snapshot's size, revision, live keys and the etcd that took it, as the workstation read them. */
    public record Snapshot(long bytes, Optional<Long> revision, Optional<Long> liveKeys, Optional<Version> takenBy) {
        static Snapshot of(SnapshotSource source) {
            return new Snapshot(source.bytes(), source.revision(), source.liveKeys(), source.takenBy());
        }
    }

    public RestoreMarker(String snapshotSha256, String token, State state, Optional<String> movedTo) {
        this(snapshotSha256, token, state, movedTo, Optional.empty());
    }

    /** The marker of a member restored, or about to be, from {@code source}. */
    static RestoreMarker of(SnapshotSource source, String token, State state, Optional<String> movedTo) {
        return new RestoreMarker(source.sha256(), token, state, movedTo, Optional.of(Snapshot.of(source)));
    }

    public static String path(EtcdLayout layout) {
        return layout.dataDir() + ".etcdwright-restore";
    }

    public RestoreMarker proven() {
        return new RestoreMarker(snapshotSha256, token, State.PROVEN, movedTo, snapshot);
    }

    /** Whether the data beside it is this snapshot restored under this token, not yet proven. */
    public boolean resumes(String sha256, String token) {
        return state == State.RESTORED && snapshotSha256.equals(sha256) && this.token.equals(token);
    }

    /** Whether a restore stopped this member and has not been proven: the next apply must finish it. */
    public boolean inFlight() {
        return state != State.PROVEN;
    }

    public byte[] render() {
        StringBuilder text = new StringBuilder("# Written by etcdwright restore: the snapshot this member's data was restored from.\n"
                + "snapshot=" + snapshotSha256 + "\ntoken=" + token + "\nstate=" + state.name().toLowerCase()
                + "\nmoved-to=" + movedTo.orElse("") + "\n");
        snapshot.ifPresent(s -> {
            text.append("bytes=").append(s.bytes()).append('\n');
            s.revision().ifPresent(r -> text.append("revision=").append(r).append('\n'));
            s.liveKeys().ifPresent(k -> text.append("keys=").append(k).append('\n'));
            s.takenBy().ifPresent(v -> text.append("taken-by=").append(v).append('\n'));
        });
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Empty when there is no marker, or not one this could have written. */
    public static Optional<RestoreMarker> parse(String text) {
        Map<String, String> values = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && eq > 0) {
                values.put(line.substring(0, eq), line.substring(eq + 1).strip());
            }
        }
        String sha = values.getOrDefault("snapshot", "");
        String token = values.getOrDefault("token", "");
        String state = values.getOrDefault("state", "");
        if (!sha.matches("[0-9a-f]{64}") || token.isEmpty() || !List.of("stopped", "restored", "proven").contains(state)) {
            return Optional.empty();
        }
        String moved = values.getOrDefault("moved-to", "");
        Optional<Long> bytes = number(values.get("bytes"));
        Optional<Snapshot> snapshot = bytes.map(b -> new Snapshot(b, number(values.get("revision")),
                number(values.get("keys")), Optional.ofNullable(values.get("taken-by")).flatMap(Version::tryParse)));
        return Optional.of(new RestoreMarker(sha, token, State.valueOf(state.toUpperCase()),
                moved.isEmpty() ? Optional.empty() : Optional.of(moved), snapshot));
    }

    private static Optional<Long> number(String text) {
        return text != null && text.matches("\\d{1,18}") ? Optional.of(Long.parseLong(text)) : Optional.empty();
    }

    /** Reads the marker in the facts script's round trip. */
    public static Probe<Optional<RestoreMarker>> probe(EtcdLayout layout) {
        String path = path(layout);
        return new Probe<>() {
            @Override
            public String name() {
                return "etcd_restore_marker";
            }

            @Override
            public String script() {
                // The shell's own loop, not cat: a process fewer on every host of every plan.
                return "[ -f \"$1\" ] && while IFS= read -r l || [ -n \"$l\" ]; do printf '%s\\n' \"$l\"; done <\"$1\"; true";
            }

            @Override
            public List<String> arguments() {
                return List.of(path);
            }

            @Override
            public Optional<RestoreMarker> parse(String output) {
                return RestoreMarker.parse(output);
            }
        };
    }
}
