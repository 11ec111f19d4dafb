package io.etcdwright.engine.spec;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.source.Addresses;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.HostPaths;
import io.etcdwright.engine.source.PemCertificates;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.Quoted;
import io.etcdwright.engine.source.UrlTemplates;
import io.etcdwright.engine.source.WorkstationFiles;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import io.etcdwright.engine.source.Listing;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a spec must satisfy beyond its schema, checked without the inventory: each value by what
 * it is (a path on the hosts, a URL, a certificate name, a file on the workstation, an etcd
 * setting), since every one of them ends up in a file, a command or a certificate on a host.
 * A check skips a field the schema already found wrong: its value was replaced by a default,
 * and a second message about a value the operator never wrote would only mislead.
 */
final class ClusterSpecChecks {

    private static final Set<String> WEB = new LinkedHashSet<>(List.of("https", "http"));
    private static final Set<String> PUSH_SCHEMES = new LinkedHashSet<>(List.of("https", "http", "file"));
    /** etcd config keys: lower-case words joined by '-'. */
    private static final Pattern SETTING_KEY = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");
    /** Below this, a port is privileged: only root may listen on it (Linux's default ip_unprivileged_port_start). */
    private static final int FIRST_UNPRIVILEGED_PORT = 1024;
    /** etcd refuses to start with an election timeout above this (milliseconds). */
    private static final int MAX_ELECTION_TIMEOUT = 50_000;

    private final YamlDocument document;
    private final ClusterSpec spec;
    private final Problems problems;
    private final VersionRules rules;

    ClusterSpecChecks(YamlDocument document, ClusterSpec spec, Problems problems, VersionRules rules) {
        this.document = document;
        this.spec = spec;
        this.problems = problems;
        this.rules = rules;
    }

    void run() {
        checkControlCharacters(document.root(), FieldPath.ROOT);
        checkVersionSpelling();
        checkPorts();
        checkDataDir();
        checkSettings();
        checkAgainstRelease();
        checkArtifacts();
        checkPki();
        checkTransport();
        checkBackup();
        checkState();
        checkMonitoring();
        checkAutomation();
    }

    /**
     * What the schema cannot say of the automation section: {@code never} is never allowed (a
     * restore, a minor downgrade or a teardown must not run unattended), a window names only the
     * classes windows govern, and its schedule is a cron expression (parsed by cron-utils, as the
     * policy reads it: a window that does not parse would be a window that never opens).
     */
    private void checkAutomation() {
        FieldPath automation = FieldPath.of("automation");
        JsonNode allow = document.root().at(automation.key("allow").pointer());
        for (int i = 0; i < allow.size(); i++) {
            FieldPath at = automation.key("allow").index(i);
            if (!reported(at) && "never".equals(allow.get(i).asText())) {
                problems.error(document, at, "never cannot be allowed: its steps (a restore, a minor downgrade, a teardown) run"
                        + " only when a person applies them; allow routine, repair or change");
            }
        }
        JsonNode windows = document.root().at(automation.key("windows").pointer());
        for (int i = 0; i < windows.size(); i++) {
            FieldPath window = automation.key("windows").index(i);
            JsonNode classes = windows.get(i).path("classes");
            for (int c = 0; c < classes.size(); c++) {
                FieldPath at = window.key("classes").index(c);
                String label = classes.get(c).asText();
                if (!reported(at) && (label.equals("routine") || label.equals("never"))) {
                    problems.error(document, at, "a window governs only change and repair: " + label + (label.equals("routine")
                            ? " always runs (it only puts the spec back)" : " never runs unattended") + "; got " + Quoted.of(label));
                }
            }
            FieldPath schedule = window.key("schedule");
            JsonNode expression = windows.get(i).path("schedule");
            if (!reported(schedule) && expression.isTextual()) {
                Automation.Parsed parsed = Automation.parse(expression.textValue());
                if (parsed.cron().isEmpty()) {
                    problems.error(document, schedule, "is not a cron expression of five fields (minute hour day-of-month month"
                            + " day-of-week, UTC), like \"0 22 * * 5\" for Fridays at 22:00: " + parsed.problem()
                            + "; got " + Quoted.of(expression.textValue()));
                }
            }
        }
    }

    /** The textfile directory is a path on every member: checked like the directories etcdwright owns. */
    private void checkMonitoring() {
        FieldPath dir = FieldPath.of("monitoring", "textfileDir");
        if (!reported(dir) && document.contains(dir)) {
            spec.monitoring().textfileDir().flatMap(d -> HostPaths.problem(d, Monitoring.DEBIAN_TEXTFILE_DIR))
                    .ifPresent(problem -> problems.error(document, dir, problem));
        }
    }

    /**
     * No key or text of a spec may hold a control character: every one of them can reach a
     * host (a file, a command line, a certificate), where a newline or a NUL changes its meaning.
     */
    private void checkControlCharacters(JsonNode node, FieldPath path) {
        if (node.isTextual()) {
            int at = Quoted.firstControl(node.textValue());
            if (at >= 0 && !reported(path)) {
                problems.error(document, path, "contains a control character (" + Quoted.of(String.valueOf(node.textValue().charAt(at)))
                        + " at position " + (at + 1) + "); got " + Quoted.of(node.textValue()));
            }
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                checkControlCharacters(node.get(i), path.index(i));
            }
        } else if (node.isObject()) {
            node.properties().forEach(field -> {
                FieldPath child = path.key(field.getKey());
                if (Quoted.firstControl(field.getKey()) >= 0) {
                    problems.errorAtKey(document, child, "the key " + Quoted.of(field.getKey()) + " contains a control character");
                } else {
                    checkControlCharacters(field.getValue(), child);
                }
            });
        }
    }

    /**
     * The version as etcd names its releases (v3.5.16): it goes into the download URL, the install
     * directory and the comparison with the version each member reports, so 3.05.16 would be
     * read as 3.5.16 here and be a release that does not exist everywhere else.
     */
    private void checkVersionSpelling() {
        FieldPath version = FieldPath.of("etcd", "version");
        String written = spec.etcd().version();
        Optional<Version> parsed = Version.tryParse(written);
        if (!reported(version) && parsed.isPresent() && !parsed.get().toString().equals(written.strip())) {
            problems.error(document, version, "has a leading zero: etcd names its releases without them, so "
                    + Quoted.of(written) + " matches no download and never the version the members report; write "
                    + parsed.get());
        }
    }

    /**
     * The version and the settings as the spec's etcd release reads them ({@link VersionRules}): a
     * release etcdwright does not operate, a setting that release dropped or spells otherwise. Only
     * settings found well-formed above are asked about.
     */
    private void checkAgainstRelease() {
        FieldPath version = FieldPath.of("etcd", "version");
        Optional<Version> parsed = Version.tryParse(spec.etcd().version());
        if (reported(version) || parsed.isEmpty()) {
            return;
        }
        FieldPath settings = FieldPath.of("etcd", "settings");
        Map<String, Object> wellFormed = new LinkedHashMap<>();
        spec.etcd().settings().forEach((key, value) -> {
            if (!reported(settings.key(key))) {
                wellFormed.put(key, value);
            }
        });
        for (VersionRules.Finding finding : rules.check(parsed.get(), wellFormed)) {
            FieldPath at = finding.setting().map(settings::key).orElse(version);
            if (finding.setting().isEmpty()) {
                if (finding.error()) {
                    problems.error(document, at, finding.message());
                } else {
                    problems.warning(document, at, finding.message());
                }
            } else if (finding.error()) {
                problems.errorAtKey(document, at, finding.message());
            } else {
                problems.warningAtKey(document, at, finding.message());
            }
        }
    }

    private void checkPorts() {
        FieldPath ports = FieldPath.of("etcd", "ports");
        if (reported(ports)) {
            return;
        }
        Ports written = spec.etcd().ports();
        privileged(ports.key("client"), written.client());
        privileged(ports.key("peer"), written.peer());
        written.metrics().ifPresent(metrics -> privileged(ports.key("metrics"), metrics));
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

    /**
     * Ports below 1024 are bound by root only (or with CAP_NET_BIND_SERVICE, which the unit does
     * not grant): etcd runs as the unprivileged etcd user and would fail at every start.
     */
    private void privileged(FieldPath at, int port) {
        if (port < FIRST_UNPRIVILEGED_PORT && document.contains(at)) {
            problems.error(document, at, "port " + port + " is below " + FIRST_UNPRIVILEGED_PORT + ", which only root may listen on;"
                    + " etcd runs as the unprivileged etcd user, so it could not bind the port and the member would never"
                    + " start; choose a port from " + FIRST_UNPRIVILEGED_PORT + " up (etcd's defaults: client 2379, peer 2380)");
        }
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
        if (!reported(dataDir)) {
            HostPaths.problem(spec.etcd().dataDir(), EtcdSettings.DEFAULT_DATA_DIR)
                    .ifPresent(problem -> problems.error(document, dataDir, problem));
        }
    }

    private void checkSettings() {
        // Not skipped when one key was refused by the schema: every other key still deserves its check.
        FieldPath settings = FieldPath.of("etcd", "settings");
        for (Map.Entry<String, Object> setting : spec.etcd().settings().entrySet()) {
            String key = setting.getKey();
            FieldPath at = settings.key(key);
            if (reported(at)) {
                continue;
            }
            Optional<String> managed = ManagedSettings.managed(key);
            if (managed.isPresent()) {
                problems.errorAtKey(document, at, managed.get());
            } else if (!SETTING_KEY.matcher(key).matches()) {
                problems.errorAtKey(document, at, "is not an etcd setting: etcd's config keys are lower-case words joined by"
                        + " '-', like heartbeat-interval; got " + Quoted.of(key));
            } else if (setting.getValue() instanceof Map<?, ?>) {
                problems.error(document, at, "must be a value or a list of values, not a mapping (the settings that take"
                        + " mappings are the TLS ones etcdwright manages)");
            } else if (setting.getValue() instanceof List<?> list && list.stream().anyMatch(item -> item instanceof Map || item instanceof List)) {
                problems.error(document, at, "must be a list of plain values");
            } else {
                ManagedSettings.valueProblem(key, setting.getValue()).ifPresent(problem -> problems.error(document, at, problem));
            }
        }
        checkTimeouts(settings);
    }

    /** etcd refuses to start when the election timeout is under five heartbeats or over 50 s. */
    private void checkTimeouts(FieldPath settings) {
        FieldPath election = settings.key("election-timeout");
        FieldPath heartbeat = settings.key("heartbeat-interval");
        Map<String, Object> written = spec.etcd().settings();
        if (!(written.get("election-timeout") instanceof Integer electionMs) || reported(election)) {
            return;
        }
        if (electionMs > MAX_ELECTION_TIMEOUT) {
            problems.error(document, election, "must be at most " + MAX_ELECTION_TIMEOUT + " (milliseconds; etcd refuses more), got "
                    + electionMs);
        }
        int heartbeatMs = written.get("heartbeat-interval") instanceof Integer h ? h : 100;
        if (!reported(heartbeat) && heartbeatMs >= 1 && electionMs < 5 * heartbeatMs) {
            problems.error(document, election, "must be at least 5 times heartbeat-interval (" + heartbeatMs
                    + " ms), or etcd refuses to start; got " + electionMs);
        }
    }

    private void checkArtifacts() {
        Artifacts artifacts = spec.artifacts();
        // The workstation may read a local file (push); hosts fetch over the network only.
        Set<String> schemes = artifacts.source() == ArtifactSource.PUSH ? PUSH_SCHEMES : WEB;
        FieldPath url = FieldPath.of("artifacts", "url");
        if (!reported(url) && !reported(FieldPath.of("artifacts", "source"))) {
            if (!artifacts.urlTemplate().contains("{version}")) {
                problems.error(document, url, "must contain {version}, or every etcd version would download the same file");
            }
            UrlTemplates.problem(artifacts.urlTemplate(), schemes, Artifacts.PLACEHOLDERS)
                    .ifPresent(problem -> problems.error(document, url, problem));
        }
        FieldPath checksumsUrl = FieldPath.of("artifacts", "checksumsUrl");
        if (!reported(checksumsUrl) && !reported(FieldPath.of("artifacts", "source"))) {
            artifacts.checksumsUrlTemplate().flatMap(template -> UrlTemplates.problem(template, schemes, Artifacts.PLACEHOLDERS))
                    .ifPresent(problem -> problems.error(document, checksumsUrl, problem));
            String version = spec.etcd().version();
            if (artifacts.checksumsUrlTemplate().isEmpty() && !reported(FieldPath.of("artifacts", "sha256"))
                    && Version.tryParse(version).isPresent() && artifacts.pinnedSha256(version).isEmpty()) {
                problems.error(document, checksumsUrl, "is null, so artifacts.sha256 must pin etcd " + version
                        + "; otherwise the download cannot be verified");
            }
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
        FieldPath dir = pki.key("dir");
        if (!reported(dir)) {
            written.dir().filter(path -> Files.exists(path) && !Files.isDirectory(path)).ifPresent(path ->
                    problems.error(document, dir, path + " exists and is not a directory; the PKI directory holds the CA"
                            + " and every certificate etcdwright issues"));
        }
        FieldPath ca = pki.key("ca");
        if (!reported(ca)) {
            checkReadableFile(ca.key("cert"), written.caCert(), "CA certificate");
            checkReadableFile(ca.key("key"), written.caKey(), "CA private key");
            FieldPath caCert = ca.key("cert");
            if (!reported(caCert)) {
                written.caCert().flatMap(file -> PemCertificates.problem(file, "CA certificate", document.root().at(caCert.pointer()).asText()))
                        .ifPresent(problem -> problems.error(document, caCert, problem));
            }
        }
        if (written.trustOnly() && !reported(ca)) {
            problems.warning(document, ca, "trust-only (a CA certificate without its key): etcdwright operates the cluster"
                    + " with the certificates its members and admin have and issues none; a plan that would need one (a"
                    + " certificate missing, wrong or due for renewal, a member joining) is refused until you give the key"
                    + " or place a certificate you issued");
        }
        FieldPath fromHosts = pki.key("fromHosts");
        if (!reported(fromHosts) && document.contains(fromHosts) && !written.trustOnly()) {
            problems.error(document, fromHosts, "names certificates already on the hosts, which only a trust-only CA uses"
                    + " (tls.pki.ca with 'cert' and no 'key'): with a CA key etcdwright issues the members' certificates"
                    + " itself; remove fromHosts, or the CA key");
        }
        FieldPath generation = pki.key("caGeneration");
        if (!reported(generation) && document.contains(generation) && written.caCert().isPresent()) {
            problems.error(document, generation, "counts the CAs etcdwright generates, but tls.pki.ca brings your own: to"
                    + " rotate your CA, point tls.pki.ca at the new certificate and key (see docs/certificates.md)");
        }
        FieldPath extraSans = pki.key("extraSans");
        if (!reported(extraSans)) {
            JsonNode sans = document.root().at(extraSans.pointer());
            for (int i = 0; i < sans.size(); i++) {
                FieldPath at = extraSans.index(i);
                if (sans.get(i).isTextual() && !reported(at)) {
                    Addresses.problem(sans.get(i).textValue())
                            .ifPresent(problem -> problems.error(document, at, problem + " (it goes into every server certificate)"));
                }
            }
        }
    }

    /** Plain HTTP is honoured, and said to be what it is: anyone who reaches the port reads and writes every key. */
    private void checkTransport() {
        FieldPath transport = FieldPath.of("tls", "transport");
        Tls.Transport t = spec.tls().transport();
        if (t.clients() == Tls.Mode.PLAINTEXT && !reported(transport.key("clients"))) {
            problems.warning(document, transport.key("clients"), "plaintext: anyone who reaches the client port reads and"
                    + " writes every key, unauthenticated; set mutual-tls to move the cluster to TLS live");
        }
        if (t.peers() == Tls.Mode.PLAINTEXT && !reported(transport.key("peers"))) {
            problems.warning(document, transport.key("peers"), "plaintext: raft traffic (every write) crosses the network"
                    + " unencrypted and any host reaching the peer port can pose as a member; set mutual-tls to move the"
                    + " cluster to TLS live");
        }
    }

    private void checkReadableFile(FieldPath at, Optional<Path> file, String what) {
        if (file.isEmpty() || reported(at)) {
            return;
        }
        String written = document.root().at(at.pointer()).asText();
        WorkstationFiles.problem(file.get(), what, written)
                .ifPresent(problem -> problems.error(document, at, problem));
    }

    private void checkBackup() {
        if (spec.backup().isEmpty()) {
            return;
        }
        BackupPolicy backup = spec.backup().get();
        Set<String> names = new HashSet<>();
        for (int i = 0; i < backup.stores().size(); i++) {
            FieldPath at = FieldPath.of("backup", "stores").index(i);
            BackupStore store = backup.stores().get(i);
            if (!reported(at.key("name")) && !names.add(store.name())) {
                problems.error(document, at.key("name"), "another store is named '" + store.name()
                        + "' already; give each store a name of its own");
            }
            checkStore(at, store);
        }
        FieldPath recipients = FieldPath.of("backup", "encryption", "recipients");
        backup.encryption().ifPresent(encryption -> {
            for (int i = 0; i < encryption.recipients().size(); i++) {
                checkReadableFile(recipients.index(i), Optional.of(encryption.recipients().get(i)),
                        "backup recipient's certificate or public key");
            }
        });
        backup.schedule().ifPresent(schedule -> checkSchedule(backup, schedule));
    }

    private void checkStore(FieldPath at, BackupStore store) {
        FieldPath path = at.key("path");
        String directoryPath = store instanceof BackupStore.Directory directory ? directory.path()
                : store instanceof BackupStore.Sftp sftp ? sftp.path() : null;
        if (directoryPath != null && !reported(path)) {
            Optional<String> problem = HostPaths.problem(directoryPath, BackupStore.DEFAULT_PATH);
            problem.ifPresent(message -> problems.error(document, path, message));
            if (problem.isEmpty() && !reported(FieldPath.of("etcd", "dataDir"))) {
                // A directory store is on the members for scheduled backups, an SFTP one may be
                // on a member's host too: either way, inside the data directory it dies with it.
                Path backups = Path.of(directoryPath);
                Path dataDir = Path.of(spec.etcd().dataDir());
                if (backups.startsWith(dataDir) || dataDir.startsWith(backups)) {
                    problems.error(document, path, "backups in " + backups + " would share the data directory " + dataDir
                            + " and be lost with it; use a directory of their own, like " + BackupStore.DEFAULT_PATH);
                }
            }
        }
        if (store instanceof BackupStore.Sftp sftp && !reported(at.key("host"))) {
            Addresses.problem(sftp.host()).ifPresent(problem -> problems.error(document, at.key("host"),
                    "names an inventory host, so it " + problem));
        }
        if (store instanceof BackupStore.S3 s3 && s3.endpoint().isPresent() && !reported(at.key("endpoint"))) {
            UrlTemplates.problem(s3.endpoint().get(), WEB, Set.of())
                    .ifPresent(problem -> problems.error(document, at.key("endpoint"), problem));
        }
    }

    private void checkState() {
        if (spec.state().isEmpty()) {
            return;
        }
        StateSettings state = spec.state().get();
        FieldPath at = FieldPath.of("state", "store");
        BackupStore store = state.store();
        String directoryPath = store instanceof BackupStore.Directory directory ? directory.path()
                : store instanceof BackupStore.Sftp sftp ? sftp.path() : null;
        if (directoryPath != null && !directoryPath.isEmpty() && !reported(at.key("path"))) {
            HostPaths.problem(directoryPath, "/srv/etcdwright-state").ifPresent(message -> problems.error(document, at.key("path"), message));
        }
        if (store instanceof BackupStore.Sftp sftp && !sftp.host().isEmpty() && !reported(at.key("host"))) {
            Addresses.problem(sftp.host()).ifPresent(problem -> problems.error(document, at.key("host"),
                    "names an inventory host, so it " + problem));
        }
        if (store instanceof BackupStore.S3 s3 && s3.endpoint().isPresent() && !reported(at.key("endpoint"))) {
            UrlTemplates.problem(s3.endpoint().get(), WEB, Set.of())
                    .ifPresent(problem -> problems.error(document, at.key("endpoint"), problem));
        }
        spec.backup().ifPresent(backup -> {
            for (BackupStore b : backup.stores()) {
                overlap(store, b).ifPresent(field -> {
                    if (!reported(at.key(field))) {
                        problems.error(document, at.key(field), "puts the state inside backup store '" + b.name()
                                + "', where 'backups prune' would count its objects as leftovers and delete them; give the"
                                + " state a place of its own (for s3 another prefix, like " + StateSettings.DEFAULT_PREFIX + ")");
                    }
                });
            }
        });
        checkSecretSource(FieldPath.of("state", "encryption", "key"), state.encryption().key());
        checkSecretSource(FieldPath.of("state", "encryption", "privateKey"), state.encryption().privateKey());
        FieldPath recipients = FieldPath.of("state", "encryption", "recipients");
        for (int i = 0; i < state.encryption().recipients().size(); i++) {
            checkReadableFile(recipients.index(i), Optional.of(state.encryption().recipients().get(i)),
                    "state recipient's certificate or public key");
        }
    }

    private static final Pattern VARIABLE = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

    /**
     * An environment variable's name, never a value: what is written here is echoed by no message,
     * since a key pasted in by mistake must not be printed too.
     */
    private void checkSecretSource(FieldPath at, Optional<StateSettings.Secret> secret) {
        if (secret.orElse(null) instanceof StateSettings.Secret.Env env && !reported(at.key("env"))
                && !VARIABLE.matcher(env.variable()).matches()) {
            problems.error(document, at.key("env"), "must be the name of an environment variable (letters, digits and '_',"
                    + " not starting with a digit), not its value (not shown); if a key was written here, it is in the spec"
                    + " file now: make a new one and put it in the variable");
        }
    }

    /** The field that makes {@code state} lie inside (or around) backup store {@code backup}, if it does. */
    private static Optional<String> overlap(BackupStore state, BackupStore backup) {
        if (state instanceof BackupStore.S3 s && backup instanceof BackupStore.S3 b && s.bucket().equals(b.bucket())
                && s.endpoint().equals(b.endpoint())
                && (s.prefix().startsWith(b.prefix()) || b.prefix().startsWith(s.prefix()))) {
            return Optional.of("prefix");
        }
        if (state instanceof BackupStore.Directory s && backup instanceof BackupStore.Directory b && nested(s.path(), b.path())) {
            return Optional.of("path");
        }
        if (state instanceof BackupStore.Sftp s && backup instanceof BackupStore.Sftp b && s.host().equals(b.host())
                && nested(s.path(), b.path())) {
            return Optional.of("path");
        }
        return Optional.empty();
    }

    private static boolean nested(String a, String b) {
        if (a.isEmpty() || b.isEmpty()) {
            return false;
        }
        try {
            Path pa = Path.of(a).normalize();
            Path pb = Path.of(b).normalize();
            return pa.startsWith(pb) || pb.startsWith(pa);
        } catch (java.nio.file.InvalidPathException e) {
            return false;
        }
    }

    private void checkSchedule(BackupPolicy backup, BackupPolicy.Schedule schedule) {
        FieldPath at = FieldPath.of("backup", "schedule");
        FieldPath interval = at.key("intervalMinutes");
        int minutes = schedule.intervalMinutes();
        if (!reported(interval) && minutes != 7 * 1440 && (minutes <= 0 || 1440 % minutes != 0)) {
            // The timer ticks at the same times of every UTC day (systemd OnCalendar, Persistent=true), so
            // that a tick missed while a host was off is taken at boot; an interval that does not divide a
            // day would cut one interval a day short.
            problems.error(document, interval, "must divide a day (1440 minutes) or be a week (10080), got " + minutes
                    + ": the members' timers tick at the same times every day, so that a tick missed while a host was off"
                    + " is caught up at boot; use, for example, " + nearDivisors(minutes));
        }
        Optional<BackupStore> store = backup.store(schedule.store());
        if (store.isEmpty()) {
            if (!reported(at.key("store"))) {
                problems.error(document, at.key("store"), "no store is named '" + schedule.store() + "' (stores: "
                        + Listing.of(backup.stores().stream().map(BackupStore::name).toList()) + ")");
            }
            return;
        }
        FieldPath credentials = at.key("credentialsFile");
        if (store.get() instanceof BackupStore.Directory) {
            if (schedule.credentialsFile().isPresent() && !reported(credentials)) {
                problems.error(document, credentials, "a directory store needs no credentials; remove credentialsFile");
            }
            return;
        }
        if (schedule.credentialsFile().isEmpty()) {
            if (!reported(at)) {
                problems.error(document, at, "scheduled backups to the " + store.get().type() + " store '"
                        + store.get().name() + "' need credentialsFile: "
                        + (store.get() instanceof BackupStore.S3
                        ? "an environment file with AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY for the hosts (write-only credentials are best)"
                        : "an SSH private key the members log in to the store's host with"));
            }
            return;
        }
        checkReadableFile(credentials, schedule.credentialsFile(), "credentials file for scheduled backups");
    }

    /** The divisors of a day nearest to {@code minutes}, below and above: what to write instead. */
    private static String nearDivisors(int minutes) {
        int below = 1;
        int above = 1440;
        for (int d = 1; d <= 1440; d++) {
            if (1440 % d == 0 && d < minutes) {
                below = d;
            }
            if (1440 % d == 0 && d > minutes && d < above) {
                above = d;
            }
        }
        return minutes > 1440 ? "1440 (a day) or 10080 (a week)" : below + " or " + above;
    }

    private boolean reported(FieldPath path) {
        return problems.hasErrorAround(document.file(), path);
    }
}
