package io.etcdwright.modules.backup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * etcd-manager's {@code control/etcd-cluster-created}: encoding/json of
 * {@code struct{Timestamp int64 `json:"timestamp,omitempty"`}} with Unix nanoseconds
 * (etcdadm etcd-manager/pkg/commands/vfs.go:197-208), compact: {@code {"timestamp":1795637703000000000}}.
 * etcd-manager only checks that it exists and is not empty (vfs.go:177-194).
 */
public record ClusterCreatedMarker(Instant createdAt) {
    public byte[] toBytes() {
        long nanos = Math.addExact(Math.multiplyExact(createdAt.getEpochSecond(), 1_000_000_000L), createdAt.getNano());
        return (nanos == 0 ? "{}" : "{\"timestamp\":" + nanos + "}").getBytes(StandardCharsets.UTF_8);
    }

    public static ClusterCreatedMarker parse(String what, byte[] json) throws IOException {
        long nanos = EtcdManagerJson.int64(what + ": timestamp", EtcdManagerJson.read(what, json).get("timestamp"));
        return new ClusterCreatedMarker(Instant.ofEpochSecond(0, nanos));
    }
}
