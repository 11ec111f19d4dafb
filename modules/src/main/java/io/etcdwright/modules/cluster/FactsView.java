package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.pki.CertificateInfo;
import io.etcdwright.modules.pki.HostCertificates;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code etcdwright facts} shows of a host: one ordered map for JSON (stable keys for
 * scripts) and the same data as text for people.
 */
public final class FactsView {
    private FactsView() {
    }

    public static Map<String, Object> of(String address, EtcdHostFacts f, Duration gatherTime, long clockSkewMillis) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", f.host());
        v.put("address", address);
        v.put("reachable", true);
        v.put("gather_ms", gatherTime.toMillis());
        v.put("system", f.system());
        v.put("clock_skew_ms", clockSkewMillis);
        Map<String, Object> etcd = new LinkedHashMap<>();
        etcd.put("installed_versions", f.install().installedVersions());
        etcd.put("active_version", f.install().activeVersion().orElse(null));
        etcd.put("etcd_version", f.install().etcdVersion().orElse(null));
        etcd.put("etcdctl_version", f.install().etcdctlVersion().orElse(null));
        etcd.put("etcdutl_version", f.install().etcdutlVersion().orElse(null));
        v.put("etcd", etcd);
        Map<String, Object> service = new LinkedHashMap<>();
        service.put("unit", EtcdLayout.UNIT);
        service.put("active_state", f.service().activeState());
        service.put("enabled", f.service().enabled());
        service.put("restarts", f.service().restarts());
        service.put("unit_file_sha256", digest(f.file(EtcdLayout.UNIT_FILE)));
        v.put("service", service);
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("exists", f.member().dataDirExists());
        data.put("has_member", f.member().hasMemberData());
        data.put("size_bytes", f.member().dataBytes());
        data.put("free_bytes", f.member().freeBytes());
        // The data directory's file system: its size, and how long one small synchronous write takes there.
        data.put("filesystem_bytes", f.disk().totalBytes().isPresent() ? f.disk().totalBytes().getAsLong() : null);
        data.put("fsync_write_us", f.disk().fsyncMicros().isPresent() ? f.disk().fsyncMicros().getAsLong() : null);
        // The newest raft snapshot (member/snap/<term>-<index>.snap): how much of the log etcd replays at start.
        data.put("newest_raft_snapshot", f.member().newestSnapshot().map(snap -> {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("file", snap.fileName());
            s.put("term", snap.term());
            s.put("index", snap.index());
            return s;
        }).orElse(null));
        v.put("data_dir", data);
        v.put("member", f.member().status().orElse(null));
        Map<String, Object> config = new LinkedHashMap<>();
        config.put("path", EtcdLayout.CONFIG_FILE);
        config.put("sha256", digest(f.file(EtcdLayout.CONFIG_FILE)));
        // What the config serves on the client and peer ports: where a move to TLS stands on this member.
        f.file(EtcdLayout.CONFIG_FILE).content().flatMap(io.etcdwright.modules.config.MemberTransport::readFrom)
                .ifPresent(t -> config.put("transport", t.describe()));
        v.put("config", config);
        v.put("certificates", certificates(f));
        return v;
    }

    public static Map<String, Object> unreachable(String host, String address, String reason, String message) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("host", host);
        v.put("address", address);
        v.put("reachable", false);
        v.put("reason", reason.toLowerCase());
        v.put("message", message);
        return v;
    }

    private static String digest(FileState file) {
        return file.exists() ? file.sha256() : null;
    }

    private static List<Map<String, Object>> certificates(EtcdHostFacts f) {
        List<Map<String, Object>> certs = new ArrayList<>();
        Instant now = Instant.now();
        for (String path : HostCertificates.allCertPaths()) {
            FileState file = f.file(path);
            if (!file.exists()) {
                continue;
            }
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("path", path);
            try {
                CertificateInfo info = CertificateInfo.parse(file.content().orElse(""));
                c.put("subject", info.subject());
                c.put("issuer", info.issuer());
                c.put("dns_names", info.dnsNames());
                c.put("ip_addresses", info.ipAddresses());
                c.put("not_after", info.notAfter());
                c.put("days_until_expiry", info.daysUntilExpiry(now));
            } catch (RuntimeException e) {
                c.put("error", e.getMessage());
            }
            certs.add(c);
        }
        return certs;
    }

    /** The text form: one block a host, aligned, for a terminal. */
    @SuppressWarnings("unchecked")
    public static String text(Map<String, Object> v) {
        StringBuilder s = new StringBuilder();
        s.append(v.get("host")).append(" (").append(v.get("address")).append(")");
        if (!Boolean.TRUE.equals(v.get("reachable"))) {
            return s.append("  UNREACHABLE: ").append(v.get("message")).append("\n").toString();
        }
        io.etcdwright.engine.facts.SystemFacts sys = (io.etcdwright.engine.facts.SystemFacts) v.get("system");
        s.append("  ").append(sys.os()).append(' ').append(sys.architecture()).append(", ").append(sys.initSystem())
                .append(", clock skew ").append(v.get("clock_skew_ms")).append(" ms, facts in ")
                .append(v.get("gather_ms")).append(" ms\n");
        Map<String, Object> etcd = (Map<String, Object>) v.get("etcd");
        line(s, "etcd", etcd.get("etcd_version") == null ? "not installed"
                : etcd.get("etcd_version") + " active (installed: " + String.join(", ", (List<String>) etcd.get("installed_versions"))
                + "); etcdctl " + etcd.get("etcdctl_version") + "; etcdutl "
                + (etcd.get("etcdutl_version") == null ? "none" : etcd.get("etcdutl_version")));
        Map<String, Object> service = (Map<String, Object>) v.get("service");
        line(s, "service", service.get("active_state") + (Boolean.TRUE.equals(service.get("enabled")) ? ", enabled" : ", not enabled")
                + ", " + service.get("restarts") + " restarts");
        Map<String, Object> data = (Map<String, Object>) v.get("data_dir");
        line(s, "data", !Boolean.TRUE.equals(data.get("exists")) ? "no data dir; " + bytes((Long) data.get("free_bytes")) + " free"
                : (Boolean.TRUE.equals(data.get("has_member")) ? "member data, " : "empty, ")
                + bytes((Long) data.get("size_bytes")) + "; " + bytes((Long) data.get("free_bytes")) + " free"
                + (data.get("filesystem_bytes") == null ? "" : " of " + bytes((Long) data.get("filesystem_bytes")))
                + (data.get("fsync_write_us") == null ? "" : "; synchronous 8 KiB write " + data.get("fsync_write_us") + " us"));
        Object member = v.get("member");
        if (member instanceof io.etcdwright.modules.membership.MemberFacts.LocalStatus st) {
            line(s, "member", "id " + st.memberId() + (st.isLeader() ? ", leader" : "") + (st.learner() ? ", learner" : "")
                    + ", cluster " + st.clusterId() + ", etcd " + st.version() + ", raft term " + st.raftTerm()
                    + " index " + st.raftIndex() + ", db " + bytes(st.dbSizeBytes()));
        }
        Map<String, Object> config = (Map<String, Object>) v.get("config");
        line(s, "config", config.get("sha256") == null ? "none" : config.get("path") + " sha256 " + ((String) config.get("sha256")).substring(0, 16)
                + (config.containsKey("transport") ? "; " + config.get("transport") : ""));
        List<Map<String, Object>> certs = (List<Map<String, Object>>) v.get("certificates");
        if (certs.isEmpty()) {
            line(s, "certs", "none");
        }
        for (Map<String, Object> c : certs) {
            String name = ((String) c.get("path")).substring(EtcdLayout.PKI_DIR.length() + 1);
            if (c.containsKey("error")) {
                line(s, "cert", name + ": unreadable (" + c.get("error") + ")");
                continue;
            }
            List<String> sans = new ArrayList<>((List<String>) c.get("dns_names"));
            sans.addAll((List<String>) c.get("ip_addresses"));
            line(s, "cert", name + " " + c.get("subject") + (sans.isEmpty() ? "" : " SAN " + String.join(",", sans))
                    + ", expires " + c.get("not_after") + " (" + c.get("days_until_expiry") + " d)");
        }
        return s.toString();
    }

    /**
     * A host that holds client files without running a member, as text: which of etcdwright's
     * files it has, with mode and owner (their content is in the JSON output, keys by digest only).
     */
    public static String clientHostText(String host, String address, Map<String, io.etcdwright.engine.facts.FileState> files) {
        StringBuilder s = new StringBuilder();
        s.append(host).append(" (").append(address).append(")  client files only, runs no member\n");
        List<io.etcdwright.engine.facts.FileState> present = files.values().stream()
                .filter(io.etcdwright.engine.facts.FileState::exists).toList();
        if (present.isEmpty()) {
            line(s, "files", "none");
        }
        for (io.etcdwright.engine.facts.FileState f : present) {
            line(s, "file", f.path().substring(EtcdLayout.PKI_DIR.length() + 1) + " " + f.mode() + " " + f.owner() + ":" + f.group());
        }
        return s.toString();
    }

    private static void line(StringBuilder s, String label, String text) {
        s.append(String.format("  %-8s %s%n", label, text));
    }

    public static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = n;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format("%.1f %s", value, units[unit]);
    }
}
