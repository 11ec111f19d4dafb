package io.etcdwright.modules.membership;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.facts.KeyValues;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;

import java.util.Optional;
import java.util.OptionalLong;

/**
 * A member's data and, when etcd answers locally, what it says about itself.
 *
 * @param dataDirExists  the data directory exists
 * @param hasMemberData  it holds a member (a {@code member/} directory): this host has been part
 *                       of a cluster and must not be bootstrapped again blindly
 * @param dataBytes      size of the data directory
 * @param freeBytes      free space on the file system holding the data directory
 * @param status         the local member's own status, when it answered over TLS
 */
public record MemberFacts(boolean dataDirExists, boolean hasMemberData, long dataBytes, long freeBytes,
                          Optional<LocalStatus> status) {

    /** What {@code etcdctl endpoint status} says about the local member. */
    public record LocalStatus(String memberId, String clusterId, String leaderId, String version,
                              long dbSizeBytes, long raftTerm, long raftIndex, boolean learner) {
        public boolean isLeader() {
            return memberId.equals(leaderId);
        }
    }

    public static Probe<MemberFacts> probe(EtcdLayout layout) {
        return new Probe<>() {
            @Override
            public String name() {
                return "etcd_member";
            }

            @Override
            public String script() {
                return SCRIPT;
            }

            @Override
            public java.util.List<String> arguments() {
                return java.util.List.of(layout.dataDir(), Integer.toString(layout.clientPort()));
            }

            @Override
            public MemberFacts parse(String output) {
                KeyValues kv = KeyValues.parse(output);
                return new MemberFacts(kv.isTrue("data_dir"), kv.isTrue("member_data"),
                        kv.getLong("data_bytes").orElse(0L), kv.getLong("free_bytes").orElse(0L),
                        kv.get("status").flatMap(MemberFacts::parseStatus));
            }
        };
    }

    /**
     * $1 the data directory, $2 the client port. The local member is asked with etcdctl and the
     * admin certificate on the host itself: these facts must not depend on whether the
     * workstation can reach the client port.
     */
    private static final String SCRIPT = "d=$1 port=$2\n"
            + "[ -d \"$d\" ] && echo data_dir=1\n"
            + "[ -d \"$d/member\" ] && echo member_data=1\n"
            + "[ -d \"$d\" ] && echo \"data_bytes=$(du -sb -- \"$d\" | cut -f1)\"\n"
            + "p=$d; while [ ! -d \"$p\" ]; do p=$(dirname -- \"$p\"); done\n"
            + "echo \"free_bytes=$(df -PB1 -- \"$p\" | awk 'NR==2 {print $4}')\"\n"
            + "if [ \"$(systemctl is-active " + EtcdLayout.UNIT + ")\" = active ] && [ -r "
            + EtcdLayout.pkiFile("admin.key") + " ]; then\n"
            + "  echo \"status=$(ETCDCTL_API=3 " + EtcdLayout.LINK_DIR + "/etcdctl --endpoints=\"https://127.0.0.1:$port\""
            + " --cacert=" + EtcdLayout.pkiFile("ca.crt") + " --cert=" + EtcdLayout.pkiFile("admin.crt")
            + " --key=" + EtcdLayout.pkiFile("admin.key") + " --dial-timeout=2s --command-timeout=3s"
            + " endpoint status -w json 2>/dev/null)\"\n"
            + "fi\n";

    private static final ObjectMapper JSON = new ObjectMapper();

    /** etcdctl prints ids as decimal uint64 in JSON; we show them in hex as etcdctl's table does. */
    static Optional<LocalStatus> parseStatus(String json) {
        try {
            JsonNode root = JSON.readTree(json);
            JsonNode first = root.isArray() ? root.path(0) : root;
            JsonNode status = first.path("Status");
            JsonNode header = status.path("header");
            if (header.isMissingNode()) {
                return Optional.empty();
            }
            return Optional.of(new LocalStatus(hex(header.path("member_id")), hex(header.path("cluster_id")),
                    hex(status.path("leader")), status.path("version").asText(""),
                    status.path("dbSize").asLong(0), status.path("raftTerm").asLong(0),
                    status.path("raftIndex").asLong(0), status.path("isLearner").asBoolean(false)));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    private static String hex(JsonNode number) {
        if (number.isMissingNode() || number.isNull()) {
            return "";
        }
        return new java.math.BigInteger(number.asText("0")).toString(16);
    }

    public OptionalLong dbSize() {
        return status.map(s -> OptionalLong.of(s.dbSizeBytes())).orElse(OptionalLong.empty());
    }
}
