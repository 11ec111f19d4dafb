package io.etcdwright.engine.spec;

import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.Listing;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a spec must satisfy beyond its schema, checked without the inventory. A check skips a
 * field the schema already found wrong: its value was replaced by a default, and a second
 * message about a value the operator never wrote would only mislead.
 */
final class ClusterSpecChecks {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}]*)}");
    /** Directories a data dir must never be: destroy empties the data dir. */
    private static final Set<String> SYSTEM_DIRECTORIES = Set.of("/", "/bin", "/boot", "/dev", "/etc", "/home", "/lib",
            "/lib64", "/opt", "/proc", "/root", "/run", "/sbin", "/srv", "/sys", "/tmp", "/usr", "/usr/local", "/var",
            "/var/lib", "/var/tmp", "/var/log");

    private final YamlDocument document;
    private final ClusterSpec spec;
    private final Problems problems;

    ClusterSpecChecks(YamlDocument document, ClusterSpec spec, Problems problems) {
        this.document = document;
        this.spec = spec;
        this.problems = problems;
    }

    void run() {
        checkVersion();
        checkPorts();
        checkDataDir();
        checkSettings();
        checkArtifacts();
        checkPki();
        checkBackup();
    }

    private void checkVersion() {
        FieldPath version = FieldPath.of("etcd", "version");
        if (reported(version)) {
            return;
        }
        Version.tryParse(spec.etcd().version())
                .filter(v -> !v.isAtLeast(Version.OLDEST_SUPPORTED))
                .ifPresent(v -> problems.error(document, version, "etcd " + v + " is not supported: etcdwright needs etcd "
                        + Version.OLDEST_SUPPORTED.major() + "." + Version.OLDEST_SUPPORTED.minor() + " or newer"));
    }

    private void checkPorts() {
        FieldPath ports = FieldPath.of("etcd", "ports");
        if (reported(ports)) {
            return;
        }
        Ports written = spec.etcd().ports();
        if (written.client() == written.peer()) {
            clash(ports.key("client"), ports.key("peer"), written.peer());
        }
        written.metrics().ifPresent(metrics -> {
            if (metrics == written.client()) {
                clash(ports.key("client"), ports.key("metrics"), metrics);
            } else if (metrics == written.peer()) {
                clash(ports.key("peer"), ports.key("metrics"), metrics);
            }
        });
    }

    /** Points at whichever of the two the operator wrote (the later one if both). */
    private void clash(FieldPath first, FieldPath second, int port) {
        FieldPath at = document.contains(second) || !document.contains(first) ? second : first;
        FieldPath other = at.equals(second) ? first : second;
        problems.error(document, at, "port " + port + " is also the " + other.lastKey().orElseThrow()
                + " port; every listener needs a port of its own");
    }

    private void checkDataDir() {
        FieldPath dataDir = FieldPath.of("etcd", "dataDir");
        if (reported(dataDir)) {
            return;
        }
        String normalized = Path.of(spec.etcd().dataDir()).normalize().toString();
        if (SYSTEM_DIRECTORIES.contains(normalized)) {
            problems.error(document, dataDir, normalized + " is a system directory, and destroy empties the data directory;"
                    + " use a directory of its own, like /var/lib/etcd");
        }
    }

    private void checkSettings() {
        FieldPath settings = FieldPath.of("etcd", "settings");
        if (reported(settings)) {
            return;
        }
        for (String key : spec.etcd().settings().keySet()) {
            ManagedSetting.insteadOf(key).ifPresent(instead ->
                    problems.errorAtKey(document, settings.key(key), "'" + key + "' is set by etcdwright; " + instead));
        }
    }

    private void checkArtifacts() {
        FieldPath url = FieldPath.of("artifacts", "url");
        Artifacts artifacts = spec.artifacts();
        if (!reported(url)) {
            if (!artifacts.urlTemplate().contains("{version}")) {
                problems.error(document, url, "must contain {version}, or every etcd version would download the same file");
            }
            checkPlaceholders(url, artifacts.urlTemplate());
        }
        FieldPath checksumsUrl = FieldPath.of("artifacts", "checksumsUrl");
        if (!reported(checksumsUrl)) {
            artifacts.checksumsUrlTemplate().ifPresent(template -> checkPlaceholders(checksumsUrl, template));
            String version = spec.etcd().version();
            if (artifacts.checksumsUrlTemplate().isEmpty() && !reported(FieldPath.of("artifacts", "sha256"))
                    && Version.tryParse(version).isPresent() && artifacts.pinnedSha256(version).isEmpty()) {
                problems.error(document, checksumsUrl, "is null, so artifacts.sha256 must pin etcd " + version
                        + "; otherwise the download cannot be verified");
            }
        }
    }

    private void checkPlaceholders(FieldPath at, String template) {
        Set<String> unknown = new LinkedHashSet<>();
        Matcher matcher = PLACEHOLDER.matcher(template);
        while (matcher.find()) {
            if (!Artifacts.PLACEHOLDERS.contains(matcher.group(1))) {
                unknown.add("{" + matcher.group(1) + "}");
            }
        }
        if (!unknown.isEmpty()) {
            problems.error(document, at, "unknown placeholder " + Listing.of(unknown) + " (known: {version}, {arch})");
        }
    }

    private void checkPki() {
        FieldPath pki = FieldPath.of("tls", "pki");
        Pki written = spec.tls().pki();
        FieldPath renewBefore = pki.key("renewBeforeDays");
        FieldPath validity = pki.key("validityDays");
        if (!reported(renewBefore) && !reported(validity) && written.renewBeforeDays() >= written.validityDays()) {
            FieldPath at = document.contains(renewBefore) || !document.contains(validity) ? renewBefore : validity;
            problems.error(document, at, "renewBeforeDays (" + written.renewBeforeDays() + ") must be less than validityDays ("
                    + written.validityDays() + "), or every run would renew every certificate");
        }
        FieldPath caValidity = pki.key("caValidityDays");
        if (!reported(validity) && !reported(caValidity) && written.validityDays() > written.caValidityDays()) {
            problems.warning(document, validity, "certificates valid for " + written.validityDays()
                    + " days would outlive their CA (caValidityDays: " + written.caValidityDays() + ")");
        }
        FieldPath ca = pki.key("ca");
        if (!reported(ca)) {
            checkReadableFile(ca.key("cert"), written.caCert());
            checkReadableFile(ca.key("key"), written.caKey());
        }
    }

    private void checkReadableFile(FieldPath at, Optional<Path> file) {
        if (file.isEmpty()) {
            return;
        }
        Path path = file.get();
        String relativeTo = " (relative paths start from the directory of " + spec.file() + ")";
        if (!Files.exists(path)) {
            problems.error(document, at, "file " + path + " does not exist" + relativeTo);
        } else if (!Files.isRegularFile(path)) {
            problems.error(document, at, path + " is not a regular file" + relativeTo);
        } else if (!Files.isReadable(path)) {
            problems.error(document, at, "file " + path + " cannot be read: permission denied");
        }
    }

    private void checkBackup() {
        FieldPath path = FieldPath.of("backup", "store", "path");
        if (spec.backup().isEmpty() || reported(path) || reported(FieldPath.of("etcd", "dataDir"))
                || !(spec.backup().get().store() instanceof BackupStore.Directory directory)) {
            return;
        }
        Path backups = Path.of(directory.path()).normalize();
        Path dataDir = Path.of(spec.etcd().dataDir()).normalize();
        if (backups.startsWith(dataDir) || dataDir.startsWith(backups)) {
            problems.error(document, path, "backups in " + backups + " would share the data directory " + dataDir
                    + " and be lost with it; use a directory of their own, like " + BackupStore.DEFAULT_PATH);
        }
    }

    private boolean reported(FieldPath path) {
        return problems.hasErrorAround(document.file(), path);
    }

    /** etcd config keys etcdwright writes itself, with the spec field to use instead. */
    private static final class ManagedSetting {

        private static final String TLS = "TLS is always mutual and managed by etcdwright: use tls.pki instead";
        private static final List<String> TLS_SUFFIXES = List.of("cert-file", "key-file", "trusted-ca-file");
        private static final Set<String> TLS_KEYS = Set.of("client-cert-auth", "peer-client-cert-auth",
                "client-transport-security", "peer-transport-security", "auto-tls", "peer-auto-tls");

        static Optional<String> insteadOf(String key) {
            if (key.equals("name")) {
                return Optional.of("the member name is the inventory host name, or set etcd_member_name on the host instead");
            } else if (key.equals("data-dir")) {
                return Optional.of("use etcd.dataDir instead");
            } else if (key.startsWith("initial-cluster")) {
                return Optional.of("the initial cluster is built from members (and cluster.name): use members.group or members.hosts instead");
            } else if (key.equals("listen-metrics-urls")) {
                return Optional.of("use etcd.ports.metrics instead");
            } else if (key.startsWith("listen-") && key.endsWith("-urls") || key.startsWith("advertise-")
                    || key.equals("initial-advertise-peer-urls")) {
                return Optional.of("URLs are built from etcd.ports and the host's etcd_address in the inventory: use those instead");
            } else if (TLS_KEYS.contains(key) || TLS_SUFFIXES.stream().anyMatch(key::endsWith)) {
                return Optional.of(TLS);
            }
            return Optional.empty();
        }
    }
}
