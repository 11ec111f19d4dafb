package io.etcdwright.engine.spec;

import com.fasterxml.jackson.databind.JsonNode;
import io.etcdwright.engine.source.FieldPath;
import io.etcdwright.engine.source.JsonValues;
import io.etcdwright.engine.source.Problems;
import io.etcdwright.engine.source.RelativePaths;
import io.etcdwright.engine.source.YamlDocument;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import java.util.OptionalInt;

/**
 * Builds a {@link ClusterSpec} from its document, filling in the defaults of
 * docs/desired-state.md. Tolerant on purpose: a value of the wrong type (already reported by
 * the schema check) is replaced by its default, so the remaining checks can still run and the
 * operator sees every problem in one go.
 */
final class ClusterSpecReader {

    private final YamlDocument document;
    private final Problems problems;

    ClusterSpecReader(YamlDocument document, Problems problems) {
        this.document = document;
        this.problems = problems;
    }

    ClusterSpec read() {
        String name = text(FieldPath.of("cluster", "name")).orElse("");
        return new ClusterSpec(document.file(), name, labels(), members(), etcd(), artifacts(), tls(), backup(name), clients(), maintenance(),
                state(), monitoring(), automation());
    }

    /** cluster.labels as written; a key or value the schema refused is its to report (a spec with errors is never used). */
    private Map<String, String> labels() {
        Map<String, String> labels = new LinkedHashMap<>();
        node(FieldPath.of("cluster", "labels")).properties().forEach(label -> {
            if (label.getValue().isTextual()) {
                labels.put(label.getKey(), label.getValue().textValue());
            }
        });
        return labels;
    }

    private Members members() {
        List<String> hosts = new ArrayList<>();
        JsonNode written = node(FieldPath.of("members", "hosts"));
        if (written.isArray()) {
            written.forEach(host -> {
                if (host.isTextual()) {
                    hosts.add(host.textValue());
                }
            });
        }
        Optional<String> group = text(FieldPath.of("members", "group"));
        if (!hosts.isEmpty() && group.isEmpty()) {
            return Members.ofHosts(hosts);
        }
        return Members.ofGroup(group.orElse(Members.DEFAULT_GROUP));
    }

    private EtcdSettings etcd() {
        FieldPath ports = FieldPath.of("etcd", "ports");
        OptionalInt metrics = integer(ports.key("metrics")).map(OptionalInt::of).orElse(OptionalInt.empty());
        return new EtcdSettings(
                text(FieldPath.of("etcd", "version")).orElse(""),
                new Ports(integer(ports.key("client")).orElse(Ports.DEFAULT_CLIENT),
                        integer(ports.key("peer")).orElse(Ports.DEFAULT_PEER), metrics),
                hostDirectory(FieldPath.of("etcd", "dataDir"), EtcdSettings.DEFAULT_DATA_DIR),
                JsonValues.toJavaMap(node(FieldPath.of("etcd", "settings"))));
    }

    private Artifacts artifacts() {
        FieldPath artifacts = FieldPath.of("artifacts");
        ArtifactSource source = text(artifacts.key("source")).flatMap(ArtifactSource::fromYaml).orElse(ArtifactSource.PUSH);
        FieldPath checksums = artifacts.key("checksumsUrl");
        // Written as null means "no checksums file"; not written means upstream's.
        Optional<String> checksumsUrl = document.contains(checksums) && node(checksums).isNull()
                ? Optional.empty()
                : Optional.of(text(checksums).orElse(Artifacts.DEFAULT_CHECKSUMS_URL_TEMPLATE));
        Map<String, String> sha256 = new LinkedHashMap<>();
        node(artifacts.key("sha256")).properties().forEach(pin -> {
            if (pin.getValue().isTextual()) {
                sha256.put(pin.getKey(), pin.getValue().textValue().toLowerCase(Locale.ROOT));
            }
        });
        return new Artifacts(source, text(artifacts.key("url")).orElse(Artifacts.DEFAULT_URL_TEMPLATE), checksumsUrl, sha256);
    }

    private Tls tls() {
        FieldPath pki = FieldPath.of("tls", "pki");
        List<String> extraSans = new ArrayList<>();
        node(pki.key("extraSans")).forEach(san -> {
            if (san.isTextual()) {
                extraSans.add(san.textValue());
            }
        });
        return new Tls(new Pki(
                path(pki.key("dir")),
                path(pki.key("ca").key("cert")),
                path(pki.key("ca").key("key")),
                text(pki.key("keyAlgorithm")).filter(Pki.KEY_ALGORITHMS::contains).orElse(Pki.DEFAULT_KEY_ALGORITHM),
                integer(pki.key("validityDays")).orElse(Pki.DEFAULT_VALIDITY_DAYS),
                integer(pki.key("renewBeforeDays")).orElse(Pki.DEFAULT_RENEW_BEFORE_DAYS),
                integer(pki.key("caValidityDays")).orElse(Pki.DEFAULT_CA_VALIDITY_DAYS),
                extraSans,
                integer(pki.key("caGeneration")).orElse(Pki.FIRST_CA_GENERATION), fromHosts(pki.key("fromHosts"))),
                new Tls.Transport(mode(FieldPath.of("tls", "transport", "clients")),
                mode(FieldPath.of("tls", "transport", "peers"))));
    }

    private Map<String, Pki.HostFiles> fromHosts(FieldPath at) {
        Map<String, Pki.HostFiles> files = new LinkedHashMap<>();
        for (String role : Pki.HOST_ROLES) {
            Optional<String> cert = text(at.key(role).key("cert"));
            Optional<String> key = text(at.key(role).key("key"));
            if (cert.isPresent() && key.isPresent()) {
                files.put(role, new Pki.HostFiles(cert.get(), key.get()));
            }
        }
        return files;
    }

    private Tls.Mode mode(FieldPath at) {
        return text(at).flatMap(Tls.Mode::ofSpecName).orElse(Tls.Mode.MUTUAL_TLS);
    }

    private Optional<BackupPolicy> backup(String clusterName) {
        FieldPath backup = FieldPath.of("backup");
        if (!node(backup).isObject()) {
            return Optional.empty();
        }
        List<BackupStore> stores = new ArrayList<>();
        JsonNode written = node(backup.key("stores"));
        for (int i = 0; written.isArray() && i < written.size(); i++) {
            stores.add(store(backup.key("stores").index(i), clusterName));
        }
        if (stores.isEmpty()) {
            return Optional.empty();
        }
        FieldPath retention = backup.key("retention");
        FieldPath recipients = backup.key("encryption").key("recipients");
        Optional<BackupPolicy.Encryption> encryption = node(recipients).isArray()
                ? Optional.of(new BackupPolicy.Encryption(IntStream.range(0, node(recipients).size())
                        .mapToObj(i -> path(recipients.index(i))).flatMap(Optional::stream).toList()))
                : Optional.empty();
        FieldPath schedule = backup.key("schedule");
        Optional<BackupPolicy.Schedule> scheduled = node(schedule).isObject()
                ? Optional.of(new BackupPolicy.Schedule(
                        integer(schedule.key("intervalMinutes")).orElse(BackupPolicy.Schedule.DEFAULT_INTERVAL_MINUTES),
                        text(schedule.key("store")).orElse(stores.get(0).name()),
                        path(schedule.key("credentialsFile"))))
                : Optional.empty();
        return Optional.of(new BackupPolicy(stores, encryption, scheduled, new BackupPolicy.Retention(
                integer(retention.key("keepAllForHours")).orElse(BackupPolicy.Retention.DEFAULT_KEEP_ALL_FOR_HOURS),
                integer(retention.key("hourlyForDays")).orElse(BackupPolicy.Retention.DEFAULT_HOURLY_FOR_DAYS),
                integer(retention.key("dailyForDays")).orElse(BackupPolicy.Retention.DEFAULT_DAILY_FOR_DAYS))));
    }

    private Optional<StateSettings> state() {
        FieldPath state = FieldPath.of("state");
        if (!node(state).isObject()) {
            return Optional.empty();
        }
        FieldPath store = state.key("store");
        BackupStore where = switch (text(store.key("type")).orElse("directory")) {
            case "sftp" -> new BackupStore.Sftp("state", text(store.key("host")).orElse(""), text(store.key("path")).orElse(""));
            case "s3" -> {
                Optional<String> endpoint = text(store.key("endpoint"));
                JsonNode pathStyle = node(store.key("pathStyle"));
                yield new BackupStore.S3("state", text(store.key("bucket")).orElse(""),
                        text(store.key("prefix")).orElse(StateSettings.DEFAULT_PREFIX), endpoint, text(store.key("region")),
                        pathStyle.isBoolean() ? pathStyle.booleanValue() : endpoint.isPresent());
            }
            default -> new BackupStore.Directory("state", text(store.key("path")).orElse(""));
        };
        FieldPath encryption = state.key("encryption");
        FieldPath recipients = encryption.key("recipients");
        List<Path> certificates = node(recipients).isArray()
                ? IntStream.range(0, node(recipients).size()).mapToObj(i -> path(recipients.index(i))).flatMap(Optional::stream).toList()
                : List.of();
        Optional<StateSettings.Secret> key = secret(encryption.key("key"));
        if (key.isEmpty() && certificates.isEmpty() && !node(encryption.key("key")).isObject()) {
            key = Optional.of(new StateSettings.Secret.Env(StateSettings.DEFAULT_KEY_VARIABLE));
        }
        return Optional.of(new StateSettings(where, new StateSettings.Encryption(key, certificates,
                secret(encryption.key("privateKey")))));
    }

    private Optional<StateSettings.Secret> secret(FieldPath at) {
        Optional<String> env = text(at.key("env"));
        if (env.isPresent()) {
            return Optional.of(new StateSettings.Secret.Env(env.get()));
        }
        return path(at.key("file")).map(StateSettings.Secret.File::new);
    }

    private Maintenance maintenance() {
        FieldPath defrag = FieldPath.of("maintenance", "defrag");
        if (!node(defrag).isObject()) {
            return Maintenance.NONE;
        }
        FieldPath schedule = defrag.key("schedule");
        Optional<Maintenance.DefragSchedule> scheduled = Optional.empty();
        if (node(schedule).isObject()) {
            // "HH:MM" (the schema checks the pattern); a value it refused becomes midnight, never seen by a host.
            java.time.LocalTime at = text(schedule.key("at")).filter(t -> t.matches("([01][0-9]|2[0-3]):[0-5][0-9]"))
                    .map(java.time.LocalTime::parse).orElse(java.time.LocalTime.MIDNIGHT);
            List<java.time.DayOfWeek> days = new ArrayList<>();
            node(schedule.key("days")).forEach(d -> {
                if (d.isTextual()) {
                    DAYS.stream().filter(day -> day.equals(d.textValue())).findFirst()
                            .ifPresent(day -> days.add(java.time.DayOfWeek.of(DAYS.indexOf(day) + 1)));
                }
            });
            scheduled = Optional.of(new Maintenance.DefragSchedule(at, days.stream().distinct().sorted().toList(),
                    integer(schedule.key("staggerMinutes")).orElse(Maintenance.DefragSchedule.DEFAULT_STAGGER_MINUTES)));
        }
        return new Maintenance(Optional.of(new Maintenance.Defrag(
                integer(defrag.key("minFragmentationPercent")).orElse(Maintenance.Defrag.DEFAULT_MIN_FRAGMENTATION_PERCENT),
                integer(defrag.key("minDbSizeMiB")).orElse(Maintenance.Defrag.DEFAULT_MIN_DB_SIZE_MIB), scheduled)));
    }

    private Monitoring monitoring() {
        FieldPath monitoring = FieldPath.of("monitoring");
        if (!node(monitoring).isObject()) {
            return Monitoring.NONE;
        }
        return new Monitoring(Optional.of(text(monitoring.key("textfileDir")).orElse(Monitoring.DEBIAN_TEXTFILE_DIR)));
    }

    /**
     * The automation section with its defaults. A class that is no class, {@code never}, a window's
     * {@code routine} or an expression that does not parse are left out here and refused by the
     * checks at their field (a spec with errors is never used).
     */
    private Automation automation() {
        FieldPath automation = FieldPath.of("automation");
        if (!node(automation).isObject()) {
            return Automation.DEFAULT;
        }
        java.util.Set<io.etcdwright.engine.plan.SafetyClass> allow = node(automation.key("allow")).isArray()
                ? classes(automation.key("allow"), java.util.EnumSet.of(io.etcdwright.engine.plan.SafetyClass.ROUTINE,
                io.etcdwright.engine.plan.SafetyClass.REPAIR, io.etcdwright.engine.plan.SafetyClass.CHANGE))
                : Automation.DEFAULT_ALLOW;
        List<Automation.Window> windows = new ArrayList<>();
        JsonNode written = node(automation.key("windows"));
        for (int i = 0; i < written.size(); i++) {
            FieldPath at = automation.key("windows").index(i);
            Optional<com.cronutils.model.Cron> cron = text(at.key("schedule")).flatMap(s -> Automation.parse(s).cron());
            int minutes = integer(at.key("durationMinutes")).orElse(0);
            if (cron.isEmpty() || minutes < 1) {
                continue;
            }
            java.util.Set<io.etcdwright.engine.plan.SafetyClass> classes = node(at.key("classes")).isArray()
                    ? classes(at.key("classes"), Automation.WINDOWED) : Automation.WINDOWED;
            windows.add(new Automation.Window(text(at.key("kind")).filter("allow"::equals).isPresent() ? Automation.Kind.ALLOW
                    : Automation.Kind.DENY, text(at.key("schedule")).orElseThrow(), cron.get(), java.time.Duration.ofMinutes(minutes),
                    classes));
        }
        return new Automation(allow,
                java.time.Duration.ofMinutes(Math.max(1, integer(automation.key("repairAfterMinutes"))
                        .orElse(Automation.DEFAULT_REPAIR_AFTER_MINUTES))),
                java.time.Duration.ofSeconds(Math.max(Automation.MIN_INTERVAL_SECONDS, integer(automation.key("intervalSeconds"))
                        .orElse(Automation.DEFAULT_INTERVAL_SECONDS))),
                java.time.Duration.ofMinutes(Math.max(1, integer(automation.key("stepDeadlineMinutes"))
                        .orElse(Automation.DEFAULT_STEP_DEADLINE_MINUTES))),
                windows);
    }

    /** The classes a list names, of those {@code known}; others are the checks' to refuse. */
    private java.util.Set<io.etcdwright.engine.plan.SafetyClass> classes(FieldPath path,
                                                                      java.util.Set<io.etcdwright.engine.plan.SafetyClass> known) {
        java.util.Set<io.etcdwright.engine.plan.SafetyClass> classes = java.util.EnumSet.noneOf(io.etcdwright.engine.plan.SafetyClass.class);
        texts(path).forEach(label -> io.etcdwright.engine.plan.SafetyClass.of(label).filter(known::contains).ifPresent(classes::add));
        return classes;
    }

    /** systemd's names of the days, Monday first (DayOfWeek's order). */
    static final List<String> DAYS = List.of("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun");

    private ClientKeys clients() {
        Map<String, ClientKeys.Targets> targets = new LinkedHashMap<>();
        for (String client : ClientKeys.CLIENTS) {
            FieldPath at = FieldPath.of("clients", client);
            if (node(at).isObject()) {
                targets.put(client, new ClientKeys.Targets(texts(at.key("hosts")), texts(at.key("groups"))));
            }
        }
        // An unknown label is refused by the schema; the default is etcdwright's own layout.
        ClientKeys.Layout layout = text(FieldPath.of("clients", ClientKeys.KUBE_APISERVER, "layout")).flatMap(ClientKeys.Layout::of)
                .orElse(ClientKeys.Layout.ETCDWRIGHT);
        return new ClientKeys(targets, layout);
    }

    private List<String> texts(FieldPath path) {
        List<String> values = new ArrayList<>();
        node(path).forEach(v -> {
            if (v.isTextual()) {
                values.add(v.textValue());
            }
        });
        return values;
    }

    private BackupStore store(FieldPath store, String clusterName) {
        String name = text(store.key("name")).orElse("");
        String type = text(store.key("type")).orElse("directory");
        // An S3 store has no path (refused by the checks); only a directory's is normalized.
        String path = type.equals("s3") ? text(store.key("path")).orElse(BackupStore.DEFAULT_PATH)
                : hostDirectory(store.key("path"), BackupStore.DEFAULT_PATH);
        return switch (type) {
            case "sftp" -> new BackupStore.Sftp(name, text(store.key("host")).orElse(""), path);
            case "s3" -> {
                Optional<String> endpoint = text(store.key("endpoint"));
                JsonNode pathStyle = node(store.key("pathStyle"));
                yield new BackupStore.S3(name, text(store.key("bucket")).orElse(""),
                        text(store.key("prefix")).orElse(clusterName + "/"), endpoint, text(store.key("region")),
                        pathStyle.isBoolean() ? pathStyle.booleanValue() : endpoint.isPresent());
            }
            default -> new BackupStore.Directory(name, path);
        };
    }

    /**
     * A directory on the hosts, with a trailing '/' and repeated '/' taken out, as every other tool
     * reads {@code /var/lib/etcd/} (the kernel names the same directory either way), and a warning
     * saying how it is read. Nothing else is rewritten: '.' and '..' are refused by the checks, as
     * a symbolic link on the host could make '..' mean another directory than the text suggests.
     */
    private String hostDirectory(FieldPath at, String defaultValue) {
        Optional<String> written = text(at);
        if (written.isEmpty()) {
            return defaultValue;
        }
        String value = written.get();
        String read = value.replaceAll("/{2,}", "/");
        if (read.length() > 1 && read.endsWith("/")) {
            read = read.substring(0, read.length() - 1);
        }
        if (read.equals(value) || io.etcdwright.engine.source.HostPaths.problem(read, defaultValue).isPresent()) {
            return value; // as written: the checks refuse what is wrong with it, in the operator's words
        }
        problems.warning(document, at, "read as " + read + " (" + (value.endsWith("/") ? "the trailing '/' removed"
                : "'//' read as '/'") + "); write it so to silence this warning");
        return read;
    }

    private JsonNode node(FieldPath path) {
        return document.root().at(path.pointer());
    }

    private Optional<String> text(FieldPath path) {
        JsonNode node = node(path);
        return node.isTextual() ? Optional.of(node.textValue()) : Optional.empty();
    }

    private Optional<Integer> integer(FieldPath path) {
        JsonNode node = node(path);
        return node.canConvertToInt() && node.isIntegralNumber() ? Optional.of(node.intValue()) : Optional.empty();
    }

    private Optional<Path> path(FieldPath path) {
        Optional<String> written = text(path);
        if (written.isEmpty() || written.get().isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(RelativePaths.resolve(document.file(), written.get()));
        } catch (InvalidPathException e) {
            problems.error(document, path, "is not a usable path: " + e.getReason());
            return Optional.empty();
        }
    }
}
