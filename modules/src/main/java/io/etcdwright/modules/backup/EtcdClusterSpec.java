package io.etcdwright.modules.backup;

import com.fasterxml.jackson.databind.JsonNode;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * etcd-manager's ClusterSpec (etcdapi.proto: {@code int32 member_count = 1; string
 * etcd_version = 2;}): inside every backup's meta, and alone in {@code control/etcd-cluster-spec}.
 */
public record EtcdClusterSpec(int memberCount, String etcdVersion) {
    public EtcdClusterSpec {
        etcdVersion = etcdVersion == null ? "" : etcdVersion;
    }

    /** As etcd-manager writes it: see {@link EtcdManagerJson}. */
    public String toJson() {
        return toJson("");
    }

    String toJson(String indent) {
        List<EtcdManagerJson.Field> fields = new ArrayList<>();
        if (memberCount != 0) {
            fields.add(new EtcdManagerJson.Field("memberCount", Integer.toString(memberCount)));
        }
        if (!etcdVersion.isEmpty()) {
            fields.add(new EtcdManagerJson.Field("etcdVersion", EtcdManagerJson.string(etcdVersion)));
        }
        return EtcdManagerJson.object(fields, indent);
    }

    public static EtcdClusterSpec parse(String what, byte[] json) throws IOException {
        return from(what, EtcdManagerJson.read(what, json));
    }

    static EtcdClusterSpec from(String what, JsonNode o) throws IOException {
        long members = EtcdManagerJson.int64(what + ": memberCount", EtcdManagerJson.field(o, "memberCount", "member_count"));
        return new EtcdClusterSpec((int) members, EtcdManagerJson.text(EtcdManagerJson.field(o, "etcdVersion", "etcd_version")));
    }

    public byte[] toBytes() {
        return toJson().getBytes(StandardCharsets.UTF_8);
    }
}
