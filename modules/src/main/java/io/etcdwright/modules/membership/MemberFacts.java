package io.etcdwright.modules.membership;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.facts.KeyValues;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.pki.HostCertificates;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
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
 * @param cluster        what the local member says about the cluster (member list, a linearizable
 *                       health read, alarms, versions), when it answered; the raw material of
 *                       {@code ClusterFacts}
 * @param newestSnapshot the newest raft snapshot in the member's {@code member/snap} directory (empty:
 *                       none, no member data, or facts recorded before it was read)
 */
public record MemberFacts(boolean dataDirExists, boolean hasMemberData, long dataBytes, long freeBytes,
                          Optional<LocalStatus> status, Optional<ClusterAnswer> cluster, Optional<StorageStatus> storage,
                          Optional<RaftSnapshot> newestSnapshot) {

    public MemberFacts {
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(cluster, "cluster");
        Objects.requireNonNull(storage, "storage");
        Objects.requireNonNull(newestSnapshot, "newestSnapshot");
    }

    /** A member whose raft snapshots are not known. */
    public MemberFacts(boolean dataDirExists, boolean hasMemberData, long dataBytes, long freeBytes,
                       Optional<LocalStatus> status, Optional<ClusterAnswer> cluster, Optional<StorageStatus> storage) {
        this(dataDirExists, hasMemberData, dataBytes, freeBytes, status, cluster, storage, Optional.empty());
    }

    /** These facts with the newest raft snapshot {@code snapshot}. */
    public MemberFacts withNewestSnapshot(Optional<RaftSnapshot> snapshot) {
        return new MemberFacts(dataDirExists, hasMemberData, dataBytes, freeBytes, status, cluster, storage, snapshot);
    }

    /** A member that said nothing of its storage version (not running, or facts recorded before it was asked). */
    public MemberFacts(boolean dataDirExists, boolean hasMemberData, long dataBytes, long freeBytes,
                       Optional<LocalStatus> status, Optional<ClusterAnswer> cluster) {
        this(dataDirExists, hasMemberData, dataBytes, freeBytes, status, cluster, Optional.empty());
    }

    /** A member that said nothing about its cluster (not running, or before the cluster facts existed). */
    public MemberFacts(boolean dataDirExists, boolean hasMemberData, long dataBytes, long freeBytes,
                       Optional<LocalStatus> status) {
        this(dataDirExists, hasMemberData, dataBytes, freeBytes, status, Optional.empty());
    }

    /**
     * What {@code etcdctl endpoint status} says about the local member.
     *
     * @param raftAppliedIndex the last index it applied (0 when etcd did not say: 3.4)
     * @param errors           what it reports wrong (alarms such as NOSPACE), as etcd words it
     * @param dbSizeInUseBytes the part of the database file in use (0 when not known): the rest is
     *                         what a defragmentation gives back
     */
    public record LocalStatus(String memberId, String clusterId, String leaderId, String version,
                              long dbSizeBytes, long raftTerm, long raftIndex, boolean learner,
                              long raftAppliedIndex, List<String> errors, long dbSizeInUseBytes) {
        public LocalStatus {
            errors = List.copyOf(errors);
        }

        /** In-use size not known (facts recorded before it was read): 0. */
        public LocalStatus(String memberId, String clusterId, String leaderId, String version,
                           long dbSizeBytes, long raftTerm, long raftIndex, boolean learner,
                           long raftAppliedIndex, List<String> errors) {
            this(memberId, clusterId, leaderId, version, dbSizeBytes, raftTerm, raftIndex, learner, raftAppliedIndex, errors, 0);
        }

        public LocalStatus(String memberId, String clusterId, String leaderId, String version,
                           long dbSizeBytes, long raftTerm, long raftIndex, boolean learner) {
            this(memberId, clusterId, leaderId, version, dbSizeBytes, raftTerm, raftIndex, learner, 0, List.of());
        }

        public boolean isLeader() {
            return memberId.equals(leaderId);
        }
    }

    /**
     * The cluster as one member sees it, asked on its own host in the same round trip as the rest.
     *
     * @param clusterId      the cluster id of the member list's header (hex)
     * @param answeredBy     the member id that gave the member list (hex)
     * @param raftTerm       the raft term in the member list's header: the newest view wins
     * @param members        the member list, in etcd's order; empty when it did not answer
     * @param healthy        whether {@code endpoint health} (a linearizable read) went through:
     *                       proof that a leader with a quorum serves requests
     * @param healthError    why it did not, as etcdctl said it (empty when healthy or unknown)
     * @param alarms         the cluster's alarms (they are cluster-wide, replicated by raft)
     * @param serverVersion  the member's etcd version from /version, when curl was there to ask
     * @param clusterVersion the cluster version from /version, when curl was there to ask
     */
    public record ClusterAnswer(String clusterId, String answeredBy, long raftTerm, List<ListedMember> members,
                                boolean healthy, String healthError, List<Alarm> alarms,
                                Optional<String> serverVersion, Optional<String> clusterVersion) {
        public ClusterAnswer {
            members = List.copyOf(members);
            alarms = List.copyOf(alarms);
            Objects.requireNonNull(serverVersion, "serverVersion");
            Objects.requireNonNull(clusterVersion, "clusterVersion");
        }
    }

    /**
     * What a member says of its storage and of a downgrade, from its own Status as the server
     * writes it (etcd's gRPC gateway on loopback), so whatever etcdctl the host links: during a
     * downgrade that is already the older one, which drops fields it does not know.
     *
     * @param storageVersion   the storage schema version, "3.6.0" (etcd 3.6 and newer; empty on 3.5)
     * @param downgradeTarget  the target of a downgrade under way, "3.5.0"; empty when none is
     * @param reportsDowngrade whether the member says anything of downgrades at all (3.6 and newer):
     *                         without it, an empty target means "not known", not "none"
     */
    public record StorageStatus(Optional<String> storageVersion, Optional<String> downgradeTarget, boolean reportsDowngrade) {
        public StorageStatus {
            Objects.requireNonNull(storageVersion, "storageVersion");
            Objects.requireNonNull(downgradeTarget, "downgradeTarget");
        }
    }

    /** One entry of {@code etcdctl member list}; ids in hex; a name is empty until the member started. */
    public record ListedMember(String id, String name, List<String> peerUrls, List<String> clientUrls, boolean learner) {
        public ListedMember {
            peerUrls = List.copyOf(peerUrls);
            clientUrls = List.copyOf(clientUrls);
        }
    }

    /** An alarm raised on a member: NOSPACE, CORRUPT (or etcd's number for one this code does not know). */
    public record Alarm(String memberId, String type) {
    }

    /** The member probe: cluster-wide questions go to the leader's host. */
    public static Probe<MemberFacts> probe(EtcdLayout layout) {
        return probe(layout, SCRIPT);
    }

    /**
     * The same probe (same name, same arguments: recorded facts read the same) asking the
     * cluster-wide questions on every host: for a second round when the leader's host was not
     * among those asked (a member on no host of the inventory leads, or its host was unreachable).
     */
    public static Probe<MemberFacts> probeAskingEveryMember(EtcdLayout layout) {
        return probe(layout, SCRIPT_EVERYONE_ASKS);
    }

    private static Probe<MemberFacts> probe(EtcdLayout layout, String script) {
        return new Probe<>() {
            @Override
            public String name() {
                return "etcd_member";
            }

            @Override
            public String script() {
                return script;
            }

            @Override
            public java.util.List<String> arguments() {
                return java.util.List.of(layout.dataDir(), Integer.toString(layout.clientPort()));
            }

            @Override
            public java.util.List<UnitProperties> units() {
                return java.util.List.of(new UnitProperties(EtcdLayout.UNIT, java.util.List.of("ActiveState")));
            }

            @Override
            public MemberFacts parse(String output) {
                KeyValues kv = KeyValues.parse(output);
                return new MemberFacts(kv.isTrue("data_dir"), kv.isTrue("member_data"),
                        kv.getLong("data_bytes").orElse(0L), kv.getLong("free_bytes").orElse(0L),
                        kv.get("status").flatMap(MemberFacts::parseStatus),
                        parseCluster(kv.getOr("members", ""), kv.getOr("health", ""), kv.getOr("alarms", ""),
                                kv.getOr("versions", "")),
                        // The server's own Status: the gateway's answer (a JSON object; etcdctl prints an array
                        // and may be an older minor's, without the storage fields), or the one asked for it.
                        kv.get("server_status").or(() -> kv.get("status").filter(st -> st.startsWith("{")))
                                .flatMap(MemberFacts::parseStorage),
                        kv.get("snap").flatMap(RaftSnapshot::fromFileName));
            }
        };
    }

    /** A glob of 16 lower-case hex digits: a raft snapshot's name is two of them (declared before the scripts built from it). */
    private static final String HEX16 = "[0-9a-f]".repeat(16);

    /**
     * $1 the data directory, $2 the client port. The local member is asked on the host itself, with
     * the member's own healthcheck client certificate: these facts must not depend on whether the
     * workstation can reach the client port. Every member says how it is (its status); what is the
     * same for the whole cluster (the member list, a linearizable health read proving quorum, the
     * alarms, the cluster version) is asked of the leader only, or of every member when none names
     * a leader (a cluster without quorum). The answers are JSON on one line each.
     *
     * <p>With curl (any that takes several requests in one run with --next: 7.36, of 2014, or later), through etcd's own HTTP endpoints: the
     * gRPC gateway (/v3/...) answers the same messages etcdctl prints, /health is the linearizable
     * read with the alarms that {@code etcdctl endpoint health} makes, and the leader's four
     * questions go out one after another on one connection: one TLS handshake and one process
     * instead of five Go binaries starting, each with handshakes of its own (a third of a no-op
     * plan's CPU on the hosts, measured). Not in parallel ({@code curl -Z}): curl's parallel mode
     * sometimes missed the end of the alarm request (which etcd answers through raft) and slept out
     * its one-second poll, under the load of a plan: a 1 s stall in about a third of no-op plans.
     * Without curl, or when its answer is not etcd's, etcdctl as before. The member list is asked
     * linearizably (as etcdctl 3.5.13+ does; a server without the field ignores it), and once more
     * serializably when that did not go through (no quorum): what a plan of a broken cluster needs.
     *
     * <p>Here the cluster-wide questions are asked on the leader's host only, or on every host when none names a leader.
     */
    private static final String SCRIPT = script("[ -z \"$lead\" ] || [ \"$lead\" = 0 ] || [ \"$self\" = \"$lead\" ]");
    /** Cluster-wide questions asked on every host: when the leader is on no host that was asked. */
    private static final String SCRIPT_EVERYONE_ASKS = script("true");

    private static String script(String asksForTheCluster) {
        String ca = EtcdLayout.pkiFile("ca.crt");
        return "d=$1 port=$2\n"
            + "[ -d \"$d\" ] && echo data_dir=1\n"
            + "[ -d \"$d/member\" ] && echo member_data=1\n"
            // Words split by the shell and its globs in place of cut, awk, ls, grep and sort: every
            // process the facts script starts is about a millisecond of the host's CPU, on every
            // host of every plan. (The arguments are in $d and $port from here on.)
            + "[ -d \"$d\" ] && set -- $(du -sb -- \"$d\") && echo \"data_bytes=$1\"\n"
            + "p=$d; while [ ! -d \"$p\" ]; do p=${p%/*}; p=${p:-/}; done\n"
            // df -P: a header of seven words, then device, size, used, available, capacity, mount point.
            + "set -- $(df -PB1 -- \"$p\"); echo \"free_bytes=${11}\"\n"
            // The newest raft snapshot: fixed-width hex names, so the last in the glob's order is the newest.
            + "if [ -d \"$d/member/snap\" ]; then n=; for f in \"$d\"/member/snap/*.snap; do f=${f##*/}; case $f in "
            + HEX16 + "-" + HEX16 + ".snap) n=$f ;; esac; done; echo \"snap=$n\"; fi\n"
            // The member's own healthcheck client; the admin client where a host has no healthcheck
            // client yet (a cluster made by an etcdwright that put the admin key on every member).
            + "c=" + EtcdLayout.pkiFile(HostCertificates.HEALTHCHECK) + "; [ -r \"$c.key\" ] || c=" + EtcdLayout.pkiFile(HostCertificates.ADMIN) + "\n"
            // The scheme its config serves on loopback (https when both are, as while moving to TLS); the
            // other one too when that does not answer: a config written but not yet restarted into.
            // (read by the shell's own loop, not grep: a process fewer on every host)
            + "serves_tls() { while IFS= read -r l || [ -n \"$l\" ]; do case $l in *'https://127.0.0.1:'*) return 0 ;; esac; done; return 1; }\n"
            + "s=http o=https; serves_tls 2>/dev/null <" + EtcdLayout.CONFIG_FILE + " && s=https o=http\n"
            + "if [ \"$(unit_show " + EtcdLayout.UNIT + " ActiveState)\" = ActiveState=active ] && { [ \"$s\" = http ] || [ -r \"$c.key\" ]; }; then\n"
            // curl when there is one (no 'curl --version' first: a process of its own on every host);
            // a status that is not etcd's answer falls back to etcdctl below.
            + "  h=; command -v curl >/dev/null && h=1\n"
            // Options for one curl request; $c and the CA are fixed paths, so the words split safely.
            // (set in $O by the shell itself, not printed by a subshell: one process fewer a request)
            + "  opts() { if [ \"$s\" = https ]; then O=\"-sS --connect-timeout 2 --max-time 3 --cacert " + ca + " --cert $c.crt --key $c.key\";"
            + " else O='-sS --connect-timeout 2 --max-time 3'; fi; }\n"
            + "  e() { if [ \"$s\" = https ]; then ETCDCTL_API=3 " + EtcdLayout.LINK_DIR + "/etcdctl --endpoints=\"https://127.0.0.1:$port\""
            + " --cacert=" + ca + " --cert=\"$c.crt\""
            + " --key=\"$c.key\" --dial-timeout=2s --command-timeout=3s \"$@\" -w json;"
            + " else ETCDCTL_API=3 " + EtcdLayout.LINK_DIR + "/etcdctl --endpoints=\"http://127.0.0.1:$port\""
            + " --dial-timeout=2s --command-timeout=3s \"$@\" -w json; fi 2>/dev/null | tr -d '\\n'; }\n"
            // The member's own status is kept in a variable, not a file: a member that is not asked
            // about the cluster starts no mktemp, grep, sed, awk or rm for it (one process each).
            + "  status= server_status=\n"
            + "  if [ -n \"$h\" ]; then\n"
            + "    st() { u=$s://127.0.0.1:$port; opts; status=$(curl $O -X POST -d '{}' \"$u/v3/maintenance/status\" 2>/dev/null); }\n"
            + "    st; if [ -z \"$status\" ] && { [ \"$o\" = http ] || [ -r \"$c.key\" ]; }; then s=$o; st; fi\n"
            // A member that serves no gRPC gateway (etcd 3.4 started from a config file that does not
            // enable it: '404 page not found') is asked with etcdctl, as without such a curl.
            + "    case $status in *'\"header\"'*) ;; *) h=; s=http o=https; serves_tls 2>/dev/null <" + EtcdLayout.CONFIG_FILE
            + " && s=https o=http ;; esac\n"
            + "  fi\n"
            // With the gateway, the status is the server's own (its storage version, any downgrade under way).
            + "  if [ -z \"$h\" ]; then\n"
            + "    status=$(e endpoint status)\n"
            + "    if [ -z \"$status\" ] && { [ \"$o\" = http ] || [ -r \"$c.key\" ]; }; then s=$o; status=$(e endpoint status); fi\n"
            // Its storage version and any downgrade under way, as the server itself writes its Status
            // (the gateway, where it serves one): the etcdctl linked may be an older minor's, which drops those fields.
            + "    if command -v curl >/dev/null; then opts; server_status=$(curl $O -X POST -d '{}' \"$s://127.0.0.1:$port/v3/maintenance/status\""
            + " 2>/dev/null); case $server_status in *'\"header\"'*) ;; *) server_status= ;; esac; fi\n"
            + "  fi\n"
            // KEY=ANSWER on one line (JSON may be printed over several), by printf: echo would read
            // the backslashes of JSON's escapes.
            + "  nl='\n'\n"
            + "  answer() { v=$2; while :; do case $v in *\"$nl\"*) v=${v%%\"$nl\"*}${v#*\"$nl\"} ;; *) break ;; esac; done;"
            + " printf '%s=%s\\n' \"$1\" \"$v\"; }\n"
            + "  answer status \"$status\"; [ -z \"$server_status\" ] || answer server_status \"$server_status\"\n"
            // The ids, by the shell's own patterns. The gateway quotes 64-bit numbers, etcdctl does not.
            + "  self= lead=\n"
            + "  case $status in *'\"member_id\":'*'\"leader\":'*)\n"
            + "    v=${status#*'\"member_id\":'}; v=${v#'\"'}; self=${v%%[!0-9]*}\n"
            + "    v=${status#*'\"leader\":'}; v=${v#'\"'}; lead=${v%%[!0-9]*} ;;\n"
            + "  esac\n"
            + "  if " + asksForTheCluster + "; then\n"
            + "    if [ -n \"$h\" ]; then\n"
            // The four answers through one curl on one connection, into a variable: each followed by
            // a line of its own that curl writes after the transfer, answered or not (-w), and cut
            // off by the shell's patterns: no temporary files, so no mktemp, grep, awk or rm on the
            // leader, whose probe is the longest of a plan. etcd's JSON holds no raw newline.
            + "      u=$s://127.0.0.1:$port; opts; m=\"$nl@etcdwright-answer@\"\n"
            + "      a=$(curl $O -X POST -d '{\"linearizable\":true}' -w \"${m}members$nl\" \"$u/v3/cluster/member/list\""
            + " --next $O -X POST -d '{\"action\":\"GET\"}' -w \"${m}alarms$nl\" \"$u/v3/maintenance/alarm\""
            + " --next $O -w \"${m}health$nl\" \"$u/health\" --next $O -w \"${m}versions$nl\" \"$u/version\" 2>/dev/null)\n"
            + "      for k in members alarms health versions; do\n"
            + "        case $a in *\"$m$k\"*) v=${a%%\"$m$k\"*} a=${a#*\"$m$k\"} ;; *) v= ;; esac; a=${a#\"$nl\"}\n"
            // etcdctl 3.5.13+ and a linearizable list need quorum; the one a member keeps locally
            // (what a plan of a broken cluster needs) is asked serializably when that did not go through.
            + "        if [ \"$k\" = members ]; then case $v in *'\"header\"'*) ;; *)"
            + " v=$(curl $O -X POST -d '{}' \"$u/v3/cluster/member/list\" 2>/dev/null) ;; esac; fi\n"
            + "        answer \"$k\" \"$v\"\n"
            + "      done\n"
            + "    elif t=$(mktemp -d); then\n"
            + "      e member list >\"$t/members\" & e endpoint health >\"$t/health\" & e alarm list >\"$t/alarms\" &\n"
            + "      if command -v curl >/dev/null; then opts; curl $O \"$s://127.0.0.1:$port/version\" >\"$t/versions\" 2>/dev/null; fi\n"
            + "      wait\n"
            // etcdctl 3.5.13+ asks for the member list linearizably, which a member without quorum
            // cannot answer; the one it keeps locally (what a plan of a broken cluster needs) comes
            // from the gRPC gateway, serializable, when curl is there to ask.
            + "      if [ ! -s \"$t/members\" ] && command -v curl >/dev/null; then"
            + " opts; curl $O -X POST -d '{}' \"$s://127.0.0.1:$port/v3/cluster/member/list\" >\"$t/members\" 2>/dev/null; fi\n"
            // Each answer on one line, KEY=JSON: the empty ones by the shell, the others by one awk.
            + "      set --; for k in members health alarms versions; do\n"
            + "        if [ -s \"$t/$k\" ]; then set -- \"$@\" \"$t/$k\"; elif [ -f \"$t/$k\" ]; then echo \"$k=\"; fi\n"
            + "      done\n"
            + "      [ \"$#\" -gt 0 ] && awk '{ k = FILENAME; sub(/.*\\//, \"\", k); if (k != last) { if (last != \"\") print \"\";"
            + " printf \"%s=\", k; last = k } printf \"%s\", $0 } END { if (last != \"\") print \"\" }' \"$@\"\n"
            + "      rm -rf -- \"$t\"\n"
            + "    fi\n"
            + "  fi\n"
            + "fi\n";
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** etcdctl prints ids as decimal uint64 in JSON; we show them in hex as etcdctl's table does. */
    static Optional<LocalStatus> parseStatus(String json) {
        try {
            JsonNode root = JSON.readTree(json);
            JsonNode first = root.isArray() ? root.path(0) : root;
            // etcdctl wraps each endpoint's answer; the gateway gives the StatusResponse itself.
            JsonNode status = first.has("Status") ? first.path("Status") : first;
            JsonNode header = status.path("header");
            if (header.isMissingNode()) {
                return Optional.empty();
            }
            return Optional.of(new LocalStatus(hex(header.path("member_id")), hex(header.path("cluster_id")),
                    // No leader: etcdctl prints 0, the gateway leaves the zero out.
                    status.has("leader") ? hex(status.path("leader")) : "0", status.path("version").asText(""),
                    status.path("dbSize").asLong(0), status.path("raftTerm").asLong(0),
                    status.path("raftIndex").asLong(0), status.path("isLearner").asBoolean(false),
                    status.path("raftAppliedIndex").asLong(0), texts(status.path("errors")),
                    status.path("dbSizeInUse").asLong(0)));
        } catch (java.io.IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The storage version and downgrade of a member's Status as etcd's gRPC gateway writes it
     * ({@code "storageVersion":"3.6.0","downgradeInfo":{"enabled":true,"targetVersion":"3.5.0"}};
     * false and empty fields are left out); empty when it is no Status at all.
     */
    static Optional<StorageStatus> parseStorage(String json) {
        JsonNode status = tree(json);
        if (status.path("header").isMissingNode()) {
            return Optional.empty();
        }
        JsonNode downgrade = status.path("downgradeInfo");
        Optional<String> target = downgrade.path("enabled").asBoolean(false) ? text(downgrade.path("targetVersion"))
                : Optional.empty();
        return Optional.of(new StorageStatus(text(status.path("storageVersion")), target, !downgrade.isMissingNode()));
    }

    /**
     * The cluster as the member saw it, from etcdctl's JSON (member list, endpoint health, alarm
     * list) and /version; empty when the member list did not come (the member did not answer).
     */
    static Optional<ClusterAnswer> parseCluster(String membersJson, String healthJson, String alarmsJson,
                                                String versionsJson) {
        JsonNode list = tree(membersJson);
        JsonNode header = list.path("header");
        if (header.isMissingNode() || !list.path("members").isArray()) {
            return Optional.empty();
        }
        List<ListedMember> members = new ArrayList<>();
        for (JsonNode m : list.path("members")) {
            members.add(new ListedMember(hex(m.path("ID")), m.path("name").asText(""), texts(m.path("peerURLs")),
                    texts(m.path("clientURLs")), m.path("isLearner").asBoolean(false)));
        }
        JsonNode health = tree(healthJson);
        JsonNode first = health.isArray() ? health.path(0) : health;
        boolean healthy = first.path("health").asBoolean(false);
        // etcdctl's endpoint health says "error"; etcd's /health says "reason" (its "health" a string).
        String healthError = healthy ? "" : first.path(first.has("reason") ? "reason" : "error")
                .asText(first.isMissingNode() ? "no answer" : "");
        List<Alarm> alarms = new ArrayList<>();
        for (JsonNode a : tree(alarmsJson).path("alarms")) {
            alarms.add(new Alarm(hex(a.path("memberID")), alarmType(a.path("alarm"))));
        }
        JsonNode versions = tree(versionsJson);
        return Optional.of(new ClusterAnswer(hex(header.path("cluster_id")), hex(header.path("member_id")),
                header.path("raft_term").asLong(0), members, healthy, healthError, alarms,
                text(versions.path("etcdserver")), text(versions.path("etcdcluster"))));
    }

    /** etcd's AlarmType: JSON gives its number; a name is kept as it is. */
    static String alarmType(JsonNode alarm) {
        if (alarm.isTextual()) {
            return alarm.asText();
        }
        return switch (alarm.asInt(0)) {
            case 0 -> "NONE";
            case 1 -> "NOSPACE";
            case 2 -> "CORRUPT";
            default -> "ALARM " + alarm.asInt();
        };
    }

    private static JsonNode tree(String json) {
        if (json == null || json.isBlank()) {
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
        try {
            return JSON.readTree(json);
        } catch (java.io.IOException e) {
            return com.fasterxml.jackson.databind.node.MissingNode.getInstance();
        }
    }

    private static Optional<String> text(JsonNode node) {
        return node.isTextual() && !node.asText().isEmpty() ? Optional.of(node.asText()) : Optional.empty();
    }

    private static List<String> texts(JsonNode array) {
        List<String> out = new ArrayList<>();
        if (array.isArray()) {
            array.forEach(n -> out.add(n.asText()));
        }
        return out;
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
