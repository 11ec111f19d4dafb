package io.etcdwright.modules.backup;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * etcd-manager's {@code _etcd_backup.meta}, its BackupInfo (etcdapi.proto: {@code string
 * etcd_version = 1; int64 timestamp = 2; ClusterSpec cluster_spec = 3;}); the timestamp is Unix
 * seconds (pkg/backup/vfs.go:55 {@code info.Timestamp = now.Unix()}), so jsonpb writes it as a
 * quoted string. For example:
 * <pre>
 * {
 *   "etcdVersion": "3.5.16",
 *   "timestamp": "1795637703",
 *   "clusterSpec": {
 *     "memberCount": 3,
 *     "etcdVersion": "3.5.16"
 *   }
 * }</pre>
 */
public record EtcdManagerMeta(String etcdVersion, Instant timestamp, Optional<EtcdClusterSpec> clusterSpec) {
    public EtcdManagerMeta {
        etcdVersion = etcdVersion == null ? "" : etcdVersion;
    }

    public String toJson() {
        List<EtcdManagerJson.Field> fields = new ArrayList<>();
        if (!etcdVersion.isEmpty()) {
            fields.add(new EtcdManagerJson.Field("etcdVersion", EtcdManagerJson.string(etcdVersion)));
        }
        if (timestamp.getEpochSecond() != 0) {
            fields.add(new EtcdManagerJson.Field("timestamp", "\"" + timestamp.getEpochSecond() + "\""));
        }
        clusterSpec.ifPresent(s -> fields.add(new EtcdManagerJson.Field("clusterSpec", s.toJson("  "))));
        return EtcdManagerJson.object(fields, "");
    }

    public byte[] toBytes() {
        return toJson().getBytes(StandardCharsets.UTF_8);
    }

    public static EtcdManagerMeta parse(String what, byte[] json) throws IOException {
        JsonNode o = EtcdManagerJson.read(what, json);
        long seconds = EtcdManagerJson.int64(what + ": timestamp", o.get("timestamp"));
        JsonNode spec = EtcdManagerJson.field(o, "clusterSpec", "cluster_spec");
        Optional<EtcdClusterSpec> clusterSpec = spec == null || spec.isNull()
                ? Optional.empty() : Optional.of(EtcdClusterSpec.from(what + ": clusterSpec", spec));
        return new EtcdManagerMeta(EtcdManagerJson.text(EtcdManagerJson.field(o, "etcdVersion", "etcd_version")),
                Instant.ofEpochSecond(seconds), clusterSpec);
    }
}
