package io.etcdwright.modules.restore;

import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What a restore leaves next to a member's data directory (root-only): which snapshot the data
 * was restored from, under which cluster token, and whether the restored cluster was proven. An
 * apply killed half-way finds it on the next run: the members already restored from the same
 * snapshot keep their data and the others are restored under the same token (the member and
 * cluster ids derive from it, so one cluster comes up). Once proven, a new restore of the same
 * file is a new restore, with a new token.
 */
public record RestoreMarker(String snapshotSha256, String token, State state, Optional<String> movedTo) {
    public enum State { RESTORED, PROVEN }

    public static String path(EtcdLayout layout) {
        return layout.dataDir() + ".etcdwright-restore";
    }

    public RestoreMarker proven() {
        return new RestoreMarker(snapshotSha256, token, State.PROVEN, movedTo);
    }

    /** Whether the data beside it is this snapshot restored under this token, not yet proven. */
    public boolean resumes(String sha256, String token) {
        return state == State.RESTORED && snapshotSha256.equals(sha256) && this.token.equals(token);
    }

    public byte[] render() {
        return ("# Written by etcdwright restore: the snapshot this member's data was restored from.\n"
                + "snapshot=" + snapshotSha256 + "\ntoken=" + token + "\nstate=" + state.name().toLowerCase()
                + "\nmoved-to=" + movedTo.orElse("") + "\n").getBytes(StandardCharsets.UTF_8);
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
        if (!sha.matches("[0-9a-f]{64}") || token.isEmpty() || !(state.equals("restored") || state.equals("proven"))) {
            return Optional.empty();
        }
        String moved = values.getOrDefault("moved-to", "");
        return Optional.of(new RestoreMarker(sha, token, State.valueOf(state.toUpperCase()),
                moved.isEmpty() ? Optional.empty() : Optional.of(moved)));
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
                return "cat -- \"$1\" 2>/dev/null; true";
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
