package io.etcdwright.cli;

import io.etcdwright.run.ClusterRun;
import io.etcdwright.run.FactsFile;
import io.etcdwright.run.Layouts;
import io.etcdwright.run.Pkis;
import io.etcdwright.modules.pki.ClusterPki;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.ConvergePlanner;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.engine.facts.FileState;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.cluster.PendingStops;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.restore.RestoreMarker;
import io.etcdwright.modules.restore.RestorePlanner;
import io.etcdwright.modules.restore.SnapshotSource;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Plans from facts recorded on real hosts by testbed/record-scenarios, as {@code plan --facts}
 * does, with the workstation PKI those hosts were given and the clock at the time of recording:
 * the same plan a live run would have made then, without any host.
 */
final class PlannerScenarios {
    static final Path DIR = Path.of("src/test/resources/scenarios");

    private final Path home;

    PlannerScenarios(Path home) {
        this.home = home;
    }

    /**
     * The workstation PKI recorded with the facts: the 3.5 cluster's, the 3.4 one's, the 3.6 and 3.7
     * ones', the downgrade's, the minor-step recordings' (3.5.35 and 3.6.16, on the hosts of
     * inventory-minor-steps), or the one of the cluster recorded with h2 and h3 powered off.
     */
    enum Pki { PKI_35, PKI_34, PKI_36_37, PKI_DOWNGRADE, MINOR_STEPS, PKI_H2_H3_CRASHED, NONE }

    /**
     * A scenario: which recorded facts, which spec, which PKI, and how long after recording.
     * {@code asRecorded}: the hosts exactly as recorded, by an etcdwright that put the admin and
     * kube-apiserver client keys on every member and no healthcheck client (an upgrade); otherwise
     * (the default) each member host that held them is read as this version leaves it: without the
     * shared client files, with its own healthcheck client of the recorded PKI ({@link #leastKeys}).
     */
    record Scenario(String facts, String spec, Pki pki, Duration later, boolean asRecorded) {
        Scenario(String facts, String spec) {
            this(facts, spec, facts.startsWith("downgrade/") ? Pki.PKI_DOWNGRADE : facts.endsWith("-34") ? Pki.PKI_34
                    : facts.endsWith("-36") || facts.endsWith("-37") ? Pki.PKI_36_37
                    : facts.equals("h2-h3-crashed") ? Pki.PKI_H2_H3_CRASHED : Pki.PKI_35, Duration.ZERO, false);
        }

        /**
         * The inventory its facts were recorded with: the 3.6 and 3.7 recordings were made on another
         * testbed net (testbed/record-scenarios 36-37), whose addresses their files hold.
         */
        String inventory() {
            return pki == Pki.PKI_36_37 ? "inventory-36-37" : "inventory";
        }

        Scenario withPki(Pki other) {
            return new Scenario(facts, spec, other, later, asRecorded);
        }

        Scenario after(Duration time) {
            return new Scenario(facts, spec, pki, time, asRecorded);
        }

        /** The hosts as recorded: the admin and kube-apiserver keys on every member (the upgrade case). */
        Scenario recorded() {
            return new Scenario(facts, spec, pki, later, true);
        }
    }

    Plan plan(Scenario s) {
        return plan(s, s.inventory());
    }

    /** As {@link #plan(Scenario)}, with another inventory of {@link #DIR}. */
    Plan plan(Scenario s, String inventory) {
        return plan(s, inventory, ConvergePlanner.VersionOptions.DEFAULT);
    }

    /** As {@link #plan(Scenario, String)}, with what the operator allows and the release source offers. */
    Plan plan(Scenario s, String inventory, ConvergePlanner.VersionOptions versions) {
        return plan(s, inventory, versions, true);
    }

    /**
     * As {@link #plan(Scenario)}, with what the operator allows for version changes and whether a
     * snapshot may be taken (false: --no-snapshot). A scenario's facts may name a file outside
     * {@link #DIR} by its absolute path (a recording edited by a test).
     */
    Plan plan(Scenario s, ConvergePlanner.VersionOptions versions, boolean snapshot) {
        return plan(s, s.inventory(), versions, snapshot);
    }

    private Plan plan(Scenario s, String inventory, ConvergePlanner.VersionOptions versions, boolean snapshot) {
        return plan(s, inventory, versions, snapshot, copyPki(s.pki()), hosts -> hosts, java.util.function.UnaryOperator.identity(),
                Optional.empty());
    }

    /** As {@link #plan(Scenario, String, ConvergePlanner.VersionOptions)}, the hosts as {@code edit} makes them of the recorded ones. */
    Plan plan(Scenario s, String inventory, ConvergePlanner.VersionOptions versions,
              java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> edit) {
        return plan(s, inventory, versions, true, copyPki(s.pki()), edit, java.util.function.UnaryOperator.identity(),
                Optional.empty());
    }

    /** As {@link #plan(Scenario)}, a new cluster bootstrapping with {@code token} (a saved plan's). */
    Plan plan(Scenario s, Optional<String> newClusterToken) {
        return plan(s, s.inventory(), ConvergePlanner.VersionOptions.DEFAULT, true, copyPki(s.pki()), hosts -> hosts,
                java.util.function.UnaryOperator.identity(), newClusterToken);
    }

    /**
     * As {@link #plan(Scenario)}, on a PKI directory the test prepared ({@link #pki}) and the hosts as
     * {@code edit} makes them of the recorded ones (a CA file replaced, a certificate reissued). A
     * spec may be named by its absolute path without ".yaml" (one a test wrote).
     */
    Plan plan(Scenario s, Path pki, java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> edit) {
        return plan(s, s.inventory(), ConvergePlanner.VersionOptions.DEFAULT, true, pki, edit, java.util.function.UnaryOperator.identity(),
                Optional.empty());
    }

    /** As {@link #plan(Scenario, Path, java.util.function.UnaryOperator)}, with the client files of hosts that run no member. */
    Plan plan(Scenario s, Path pki, java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> edit,
              io.etcdwright.modules.pki.ClientHostFacts clients) {
        return plan(s, s.inventory(), ConvergePlanner.VersionOptions.DEFAULT, true, pki, edit, java.util.function.UnaryOperator.identity(),
                Optional.empty(), clients);
    }

    /** As {@link #plan(Scenario)}, with what the backup stores hold when the plan asks (a cluster without quorum). */
    Plan plan(Scenario s, io.etcdwright.modules.backup.BackupsSeen.Lookup backups) {
        return plan(s, s.inventory(), ConvergePlanner.VersionOptions.DEFAULT, true, copyPki(s.pki()), hosts -> hosts,
                java.util.function.UnaryOperator.identity(), Optional.empty(), io.etcdwright.modules.pki.ClientHostFacts.NONE,
                backups);
    }

    /** As {@link #plan(Scenario)}, with the recorded facts edited first (alarms, disks, clocks the recordings do not show). */
    Plan plan(Scenario s, java.util.function.UnaryOperator<ClusterRun.Facts> edit) {
        return plan(s, s.inventory(), ConvergePlanner.VersionOptions.DEFAULT, true, copyPki(s.pki()), hosts -> hosts, edit,
                Optional.empty());
    }

    /** The recorded facts of {@code s}, as every plan here reads them. */
    ClusterRun.Facts facts(Scenario s) {
        DesiredState desired = DesiredStateLoader.load(DIR.resolve(s.inventory() + ".yaml"), DIR.resolve(s.spec() + ".yaml"));
        ClusterRun.Facts facts = FactsFile.load(DIR.resolve(s.facts() + ".json"), desired.spec().name(),
                desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), EtcdProbes.of(Layouts.of(desired)));
        return new ClusterRun.Facts(facts.reports(), facts.addresses(), leastKeys(facts.byHost(), copyPki(s.pki())),
                facts.unreachable(), facts.cluster());
    }

    /** A private copy of a recorded PKI, for {@link #plan(Scenario, Path, java.util.function.UnaryOperator)}. */
    Path pki(Pki which) {
        return copyPki(which);
    }

    /** The clock of a recording: when its facts were gathered. */
    static Clock clockOf(Scenario s) {
        return Clock.fixed(recordedAt(DIR.resolve(s.facts() + ".json")).plus(s.later()), ZoneOffset.UTC);
    }

    private Plan plan(Scenario s, String inventory, ConvergePlanner.VersionOptions versions, boolean snapshot, Path pki,
                      java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> hostEdit,
                      java.util.function.UnaryOperator<ClusterRun.Facts> factsEdit, Optional<String> newClusterToken) {
        return plan(s, inventory, versions, snapshot, pki, hostEdit, factsEdit, newClusterToken,
                io.etcdwright.modules.pki.ClientHostFacts.NONE);
    }

    private Plan plan(Scenario s, String inventory, ConvergePlanner.VersionOptions versions, boolean snapshot, Path pki,
                      java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> hostEdit,
                      java.util.function.UnaryOperator<ClusterRun.Facts> factsEdit, Optional<String> newClusterToken,
                      io.etcdwright.modules.pki.ClientHostFacts clients) {
        return plan(s, inventory, versions, snapshot, pki, hostEdit, factsEdit, newClusterToken, clients,
                io.etcdwright.modules.backup.BackupsSeen.Lookup.notLooked("no store in this scenario"));
    }

    private Plan plan(Scenario s, String inventory, ConvergePlanner.VersionOptions versions, boolean snapshot, Path pki,
                      java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> hostEdit,
                      java.util.function.UnaryOperator<ClusterRun.Facts> factsEdit, Optional<String> newClusterToken,
                      io.etcdwright.modules.pki.ClientHostFacts clients, io.etcdwright.modules.backup.BackupsSeen.Lookup backups) {
        DesiredState desired = DesiredStateLoader.load(DIR.resolve(inventory + ".yaml"), DIR.resolve(s.spec() + ".yaml"));
        EtcdLayout layout = Layouts.of(desired);
        Path factsFile = DIR.resolve(s.facts() + ".json");
        ClusterRun.Facts facts = FactsFile.load(factsFile, desired.spec().name(),
                desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), EtcdProbes.of(layout));
        Clock clock = Clock.fixed(recordedAt(factsFile).plus(s.later()), ZoneOffset.UTC);
        Map<String, EtcdHostFacts> byHost = hostEdit.apply(s.asRecorded() ? facts.byHost() : leastKeys(facts.byHost(), pki));
        facts = factsEdit.apply(new ClusterRun.Facts(facts.reports(), facts.addresses(), byHost, facts.unreachable(), facts.cluster()));
        byHost = facts.byHost();
        return ConvergePlanner.plan(new ConvergePlanner.Inputs(desired, layout, byHost, facts.unreachable(),
                Pkis.of(desired, pki, clock), new ReleaseCache(home.resolve("releases")), facts.cluster(),
                snapshot ? Optional.of(home.resolve("snapshots")) : Optional.empty(),
                new PendingStops(home.resolve("removed-hosts")), ConvergePlanner.Timeouts.DEFAULT, clock.instant(), versions)
                .withNewClusterToken(newClusterToken).withClientHosts(clients).withBackups(backups));
    }

    /**
     * As {@link #plan(Scenario)}, from a read-only runner (ReadOnlyRunner): the recorded CA's
     * certificate and a reader certificate issued from it in {@code reader/}, no CA key, no other
     * part of the PKI. The hosts are read as the recorded PKI left them.
     */
    Plan planReadOnly(Scenario s) {
        DesiredState desired = DesiredStateLoader.load(DIR.resolve("inventory.yaml"), DIR.resolve(s.spec() + ".yaml"));
        EtcdLayout layout = Layouts.of(desired);
        Path factsFile = DIR.resolve(s.facts() + ".json");
        ClusterRun.Facts facts = FactsFile.load(factsFile, desired.spec().name(),
                desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), EtcdProbes.of(layout));
        Clock clock = Clock.fixed(recordedAt(factsFile).plus(s.later()), ZoneOffset.UTC);
        Path recorded = copyPki(s.pki());
        Path reader = home.resolve("reader-" + System.nanoTime());
        ClusterPki full = Pkis.of(desired, recorded, clock);
        io.etcdwright.modules.pki.IssuedCertificate issued = io.etcdwright.modules.pki.CertificateAuthority.load(
                recorded.resolve("ca.crt"), recorded.resolve("ca.key"), clock).issue(full.readerRequest(), clock);
        try {
            Files.createDirectories(reader);
            Files.copy(recorded.resolve("ca.crt"), reader.resolve("ca.crt"));
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        issued.writeTo(reader.resolve("reader.crt"), reader.resolve("reader.key"));
        ClusterPki.Settings settings = full.settings();
        ClusterPki readOnly = ClusterPki.readOnly(new ClusterPki.Settings(settings.clusterName(), reader,
                Optional.of(reader.resolve("ca.crt")), Optional.empty(), settings.keyAlgorithm(), settings.validity(),
                settings.renewBefore(), settings.caValidity(), settings.extraSans(), settings.caGeneration()), clock,
                new ClusterPki.LocalPair(reader.resolve("reader.crt"), reader.resolve("reader.key")));
        return ConvergePlanner.plan(new ConvergePlanner.Inputs(desired, layout, leastKeys(facts.byHost(), recorded),
                facts.unreachable(), readOnly, new ReleaseCache(home.resolve("releases")), facts.cluster(),
                Optional.of(home.resolve("snapshots")), new PendingStops(home.resolve("removed-hosts")),
                ConvergePlanner.Timeouts.DEFAULT, clock.instant(), ConvergePlanner.VersionOptions.DEFAULT));
    }

    /**
     * The restore plan of {@code source} from these recorded facts; the hosts in {@code unreachable}
     * are taken as not answering, {@code markers} as what earlier restores left on the hosts.
     */
    Plan restore(Scenario s, SnapshotSource source, boolean skipHashCheck, Map<String, Optional<RestoreMarker>> markers,
                 Set<String> unreachable) {
        return restore(s, source, skipHashCheck, markers, unreachable, copyPki(s.pki()), hosts -> hosts);
    }

    /** As above, on a PKI directory the test prepared and the hosts as {@code edit} makes them (a CA rotation under way). */
    Plan restore(Scenario s, SnapshotSource source, Path pkiDir, java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> edit) {
        return restore(s, source, false, Map.of(), Set.of(), pkiDir, edit);
    }

    /**
     * The restore command's plan: knowing the cluster it replaces, as the recorded members described it
     * (its members on hosts the spec does not list are stopped, or noted in {@code removed-hosts}).
     */
    Plan restoreReplacing(Scenario s, SnapshotSource source) {
        return restore(s, source, false, Map.of(), Set.of(), copyPki(s.pki()), hosts -> hosts, true);
    }

    private Plan restore(Scenario s, SnapshotSource source, boolean skipHashCheck, Map<String, Optional<RestoreMarker>> markers,
                         Set<String> unreachable, Path pkiDir, java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> edit) {
        return restore(s, source, skipHashCheck, markers, unreachable, pkiDir, edit, false);
    }

    private Plan restore(Scenario s, SnapshotSource source, boolean skipHashCheck, Map<String, Optional<RestoreMarker>> markers,
                         Set<String> unreachable, Path pkiDir, java.util.function.UnaryOperator<Map<String, EtcdHostFacts>> edit,
                         boolean replacing) {
        DesiredState desired = DesiredStateLoader.load(DIR.resolve(s.inventory() + ".yaml"), DIR.resolve(s.spec() + ".yaml"));
        EtcdLayout layout = Layouts.of(desired);
        Path factsFile = DIR.resolve(s.facts() + ".json");
        ClusterRun.Facts facts = FactsFile.load(factsFile, desired.spec().name(),
                desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), EtcdProbes.of(layout));
        Clock clock = Clock.fixed(recordedAt(factsFile).plus(s.later()), ZoneOffset.UTC);
        Path pki = pkiDir;
        Map<String, EtcdHostFacts> reached = new java.util.LinkedHashMap<>(edit.apply(s.asRecorded() ? facts.byHost()
                : leastKeys(facts.byHost(), pki)));
        Map<String, String> down = new java.util.LinkedHashMap<>(facts.unreachable());
        unreachable.forEach(h -> {
            reached.remove(h);
            down.put(h, "connection timed out");
        });
        RestorePlanner.Inputs inputs = new RestorePlanner.Inputs(desired, layout, reached, down, markers,
                Pkis.of(desired, pki, clock), new ReleaseCache(home.resolve("releases")), source, skipHashCheck,
                "fresh-token", Instant.parse("2026-11-24T20:00:00Z"), ConvergePlanner.Timeouts.DEFAULT);
        return RestorePlanner.plan(replacing ? inputs.replacing(facts.cluster().orElseThrow(),
                new PendingStops(home.resolve("removed-hosts"))) : inputs);
    }

    /** "id <- after, after" per step, then "refused kind: subject" per refusal: what the tests compare. */
    static List<String> shape(Plan plan) {
        Stream<String> steps = plan.steps().stream().map(PlannerScenarios::shape);
        Stream<String> refusals = plan.refusals().stream().map(r -> "refused " + r.kind() + ": " + r.subject());
        return Stream.concat(steps, refusals).toList();
    }

    static String shape(Step s) {
        return s.id() + (s.after().isEmpty() ? "" : " <- " + String.join(", ", s.after()));
    }

    /** The member that led when the facts were recorded (elections decide it, so tests derive their order from it). */
    static String leaderOf(String facts) {
        try {
            return new ObjectMapper().readTree(DIR.resolve(facts + ".json").toFile()).path("cluster_facts").path("leader").asText();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The spec's order of these members, followers first and the leader last: the order of a rolling restart. */
    static List<String> leaderLast(List<String> members, String leader) {
        List<String> ordered = new java.util.ArrayList<>(members.stream().filter(m -> !m.equals(leader)).toList());
        if (members.contains(leader)) {
            ordered.add(leader);
        }
        return ordered;
    }

    /**
     * The recorded hosts as this version leaves them: a host that held the admin client (every
     * member of the version that recorded them) holds no admin or kube-apiserver client file, and
     * its own healthcheck client as the PKI at {@code pki} issued it, with its server pair's modes,
     * owners and times. Nothing else changes.
     */
    static Map<String, EtcdHostFacts> leastKeys(Map<String, EtcdHostFacts> recorded, Path pki) {
        Map<String, EtcdHostFacts> hosts = new java.util.LinkedHashMap<>();
        recorded.forEach((name, asRecorded) -> {
            EtcdHostFacts f = withDefaults(asRecorded);
            Path own = pki.resolve("members").resolve(name);
            if (!f.file(HostCertificates.certPath(HostCertificates.ADMIN)).exists()) {
                hosts.put(name, f);
                return;
            }
            Map<String, FileState> files = new java.util.LinkedHashMap<>(f.files());
            for (String role : HostCertificates.CLIENTS) {
                files.put(HostCertificates.certPath(role), FileState.missing(HostCertificates.certPath(role)));
                files.put(HostCertificates.keyPath(role), FileState.missing(HostCertificates.keyPath(role)));
            }
            if (!Files.exists(own.resolve(HostCertificates.HEALTHCHECK + ".crt"))) {
                // No PKI of the recording (a new CA): the host's healthcheck client is of no CA known here.
                hosts.put(name, withFiles(f, files));
                return;
            }
            files.put(HostCertificates.certPath(HostCertificates.HEALTHCHECK), like(f.file(HostCertificates.certPath(HostCertificates.SERVER)),
                    HostCertificates.certPath(HostCertificates.HEALTHCHECK), own.resolve(HostCertificates.HEALTHCHECK + ".crt"), true));
            files.put(HostCertificates.keyPath(HostCertificates.HEALTHCHECK), like(f.file(HostCertificates.keyPath(HostCertificates.SERVER)),
                    HostCertificates.keyPath(HostCertificates.HEALTHCHECK), own.resolve(HostCertificates.HEALTHCHECK + ".key"), false));
            hosts.put(name, withFiles(f, files));
        });
        return hosts;
    }

    /** The keys of etcd's config file that etcdwright writes itself, in its order; every other key is a setting. */
    private static final List<String> OWN_KEYS = List.of("name", "data-dir", "listen-peer-urls", "listen-client-urls",
            "advertise-client-urls", "initial-advertise-peer-urls", "initial-cluster", "initial-cluster-state",
            "initial-cluster-token", "strict-reconfig-check", "enable-grpc-gateway", "listen-metrics-urls",
            "client-transport-security", "peer-transport-security");

    /**
     * A host's etcd config file as this version writes it: the recordings come from an etcdwright that
     * wrote no defaults, and this one writes etcd's data-corruption checks (the catalogue's
     * {@code defaults}, as the release the member runs spells them) among the settings, sorted. Only a
     * file this code reads back to its recorded bytes is changed (a file edited by hand, as the drift
     * recordings did, stays as recorded); its time stays, so a restart pending stays pending.
     */
    static EtcdHostFacts withDefaults(EtcdHostFacts f) {
        FileState config = f.file(EtcdLayout.CONFIG_FILE);
        // The release the file was written for: the one the member runs (in a minor step killed halfway,
        // the members not yet restarted run the older one beside the newer release's active links).
        Optional<io.etcdwright.engine.spec.Version> runs = f.member().status().map(s -> s.version())
                .or(() -> f.install().activeVersion()).flatMap(io.etcdwright.engine.spec.Version::tryParse);
        if (config.content().isEmpty() || runs.isEmpty()) {
            return f;
        }
        Map<String, Object> defaults = io.etcdwright.modules.catalogue.VersionCatalogue.builtIn()
                .configFor(runs.get(), Map.of()).config();
        Map<String, Object> doc = new org.yaml.snakeyaml.Yaml().load(config.content().get());
        if (!config.content().get().equals(dumped(doc)) || defaults.keySet().stream().anyMatch(doc::containsKey)) {
            return f;
        }
        Map<String, Object> settings = new java.util.TreeMap<>(defaults);
        Map<String, Object> rewritten = new java.util.LinkedHashMap<>();
        doc.forEach((key, value) -> (OWN_KEYS.contains(key) ? rewritten : settings).put(key, value));
        rewritten.putAll(settings);
        byte[] bytes = dumped(rewritten).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        Map<String, FileState> files = new java.util.LinkedHashMap<>(f.files());
        files.put(EtcdLayout.CONFIG_FILE, new FileState(config.path(), true, io.etcdwright.engine.ssh.HostSession.sha256(bytes),
                config.mode(), config.owner(), config.group(), config.modifiedMicros(),
                Optional.of(new String(bytes, java.nio.charset.StandardCharsets.UTF_8))));
        return withFiles(f, files);
    }

    /** As EtcdConfigFile dumps it. */
    private static String dumped(Map<String, Object> doc) {
        org.yaml.snakeyaml.DumperOptions options = new org.yaml.snakeyaml.DumperOptions();
        options.setDefaultFlowStyle(org.yaml.snakeyaml.DumperOptions.FlowStyle.BLOCK);
        options.setIndent(2);
        options.setWidth(Integer.MAX_VALUE);
        return "# Managed by etcdwright: edits here are reverted by the next apply.\n" + new org.yaml.snakeyaml.Yaml(options).dump(doc);
    }

    static EtcdHostFacts withFiles(EtcdHostFacts f, Map<String, FileState> files) {
        return new EtcdHostFacts(f.host(), f.system(), f.install(), f.setup(), java.util.Collections.unmodifiableMap(files),
                f.service(), f.member(), f.schedule(), f.restoreMarker(), f.disk(), f.clockSkewMillis());
    }

    private static FileState like(FileState model, String path, Path local, boolean content) {
        try {
            byte[] bytes = Files.readAllBytes(local);
            return new FileState(path, true, io.etcdwright.engine.ssh.HostSession.sha256(bytes), model.mode(), model.owner(),
                    model.group(), model.modifiedMicros(),
                    content ? Optional.of(new String(bytes, java.nio.charset.StandardCharsets.UTF_8)) : Optional.empty());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static Instant recordedAt(Path factsFile) {
        try {
            return Instant.parse(new ObjectMapper().readTree(factsFile.toFile()).path("gathered_at").asText());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A private copy, keys 0600 as the PKI wants them (git keeps no modes); empty for NONE. */
    private Path copyPki(Pki which) {
        Path target = home.resolve("pki-" + which.name().toLowerCase() + "-" + System.nanoTime());
        try {
            Files.createDirectories(target);
            if (which == Pki.NONE) {
                return target;
            }
            Path source = DIR.resolve(switch (which) {
                case PKI_35 -> "pki-35";
                case PKI_34 -> "pki-34";
                case PKI_36_37 -> "pki-36-37";
                case MINOR_STEPS -> "pki-minor-steps";
                case PKI_H2_H3_CRASHED -> "pki-h2-h3-crashed";
                default -> "downgrade/pki";
            });
            try (Stream<Path> files = Files.walk(source)) {
                for (Path f : files.toList()) {
                    Path to = target.resolve(source.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(f, to);
                        if (f.getFileName().toString().endsWith(".key")) {
                            Files.setPosixFilePermissions(to, PosixFilePermissions.fromString("rw-------"));
                        }
                    }
                }
            }
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
