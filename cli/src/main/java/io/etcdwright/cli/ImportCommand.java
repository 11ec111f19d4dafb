package io.etcdwright.cli;

import io.etcdwright.run.EtcdwrightHome;
import io.etcdwright.run.Hosts;
import io.etcdwright.engine.inventory.Inventory;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.inventory.InventoryLoader;
import io.etcdwright.engine.output.Json;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Pki;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.modules.adopt.ClusterImport;
import io.etcdwright.modules.adopt.ForeignHost;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.EtcdHttp;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KeyAlgorithm;
import io.etcdwright.modules.pki.Pem;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Adopts a running cluster etcdwright did not create: reads how each host runs etcd, imports the
 * CA into the workstation's PKI directory, asks etcd for its members and writes a desired state
 * that describes the cluster as it is (docs/import.md). Changes nothing on any host.
 */
@Command(name = "import", description = {
        "Adopt a running etcd cluster that etcdwright did not create, and write a desired state that describes it as it is.",
        "For kubeadm's external etcd, etcdadm, a distribution package or a hand-written systemd unit: reads each host's",
        "etcd.service (flags and environment files), imports the cluster's CA into the workstation's PKI directory, asks",
        "etcd for its members, and writes the desired state. Nothing on the hosts changes; the next plan converges the layout onto",
        "etcdwright's one member at a time, keeping the data where it is (docs/import.md)."})
final class ImportCommand implements Callable<Integer> {
    @Option(names = {"-i", "--inventory"}, required = true, paramLabel = "INVENTORY", description = "The inventory of the cluster's hosts.")
    Path inventoryFile;

    @Option(names = "--out", paramLabel = "SPEC", description = "Write the desired state here (not over an existing file); default: print it.")
    Path out;

    @Option(names = "--limit", paramLabel = "PATTERN",
            description = "The member hosts, like Ansible's --limit (default: the group etcd, else every host).")
    String limit;

    @Option(names = "--name", paramLabel = "NAME",
            description = "The cluster's name for etcdwright (default: its initial-cluster-token, when that is a valid name).")
    String name;

    @Option(names = "--ca-key", paramLabel = "FILE",
            description = "The CA's private key, when it is kept off the hosts (default: ca.key beside the CA certificate on a host).")
    Path caKey;

    @Option(names = "--client-cert", paramLabel = "FILE",
            description = "Trust-only (no CA key): the client certificate etcdwright connects with, issued from the cluster's CA"
                    + " (default: one found beside the CA on a member: healthcheck-client, etcdctl-etcd-client, or kubeadm's"
                    + " apiserver-etcd-client). With --client-key.")
    Path clientCert;

    @Option(names = "--client-key", paramLabel = "FILE", description = "The key of --client-cert.")
    Path clientKey;

    @Option(names = "--artifacts-url", paramLabel = "URL", description = "artifacts.url of the written spec (a mirror of etcd's releases).")
    String artifactsUrl;

    @Option(names = "--checksums-url", paramLabel = "URL", description = "artifacts.checksumsUrl of the written spec.")
    String checksumsUrl;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json",
            description = "text: the spec (without --out) on stdout, what was done on stderr; json: one document on stdout,"
                    + " the spec in it (default: ${DEFAULT-VALUE}).")
    OutputFormat output;

    @Mixin
    ConnectionOptions connection;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter stdout = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (out != null && Files.exists(out)) {
            throw new IllegalArgumentException(out + " exists: import writes a new file; remove it or give another --out");
        }
        if ((clientCert == null) != (clientKey == null)) {
            throw new IllegalArgumentException("--client-cert and --client-key go together: the admin client's certificate"
                    + " and its key");
        }
        if (clientCert != null && caKey != null) {
            throw new IllegalArgumentException("--client-cert is for a trust-only import (no CA key); with --ca-key etcdwright"
                    + " issues its own admin client");
        }
        Inventory inventory = InventoryLoader.load(inventoryFile);
        List<InventoryHost> hosts = hosts(inventory);
        List<String> notes = new ArrayList<>();
        try {
            ClusterImport.Result result = importCluster(inventory, hosts, notes);
            notes.addAll(result.notes());
            write(result.specYaml(), output == OutputFormat.text ? stdout : null);
            Path pkiDir = EtcdwrightHome.pkiDir(result.clusterName());
            if (output == OutputFormat.json) {
                stdout.println(Json.write(document(Optional.of(result), Optional.ofNullable(out), Optional.of(pkiDir), notes,
                        List.of())));
                return Main.OK;
            }
            err.println("Imported cluster " + result.clusterName() + ": " + result.members().size() + " member"
                    + (result.members().size() == 1 ? "" : "s") + " (" + String.join(", ", result.members()) + "), etcd "
                    + result.version() + ", data in " + result.dataDir() + " (kept where it is).");
            if (result.trustOnly()) {
                err.println("CA certificate imported into " + pkiDir + " without its key: the cluster is operated trust-only"
                        + " (etcdwright issues no certificate).");
            } else if (ClusterImport.needsCa(result.transport())) {
                err.println("CA imported into " + pkiDir + " (the key 0600; it stays on the workstation).");
            }
            notes.forEach(n -> err.println("note: " + n));
            err.println("Next: etcdwright plan -i " + inventoryFile + " -f " + (out == null ? "SPEC" : out)
                    + " shows the move onto etcdwright's layout: files side by side, then one member restarted at a time.");
            return Main.OK;
        } catch (ClusterImport.Refused refused) {
            if (output == OutputFormat.json) {
                stdout.println(Json.write(document(Optional.empty(), Optional.empty(), Optional.empty(), notes, refused.reasons())));
            }
            refused.reasons().forEach(r -> err.println("error: " + r));
            err.println("No spec was written and no host was changed.");
            return Main.ERROR;
        }
    }

    /**
     * {@code -o json} (schemas/import.schema.json): whether it was imported, the spec and where it
     * went, the members, and what the operator should know or fix. Never key material.
     */
    static Map<String, Object> document(Optional<ClusterImport.Result> result, Optional<Path> specFile, Optional<Path> pkiDir,
                                        List<String> notes, List<String> refusals) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", 1);
        doc.put("imported", result.isPresent());
        doc.put("cluster", result.map(ClusterImport.Result::clusterName).orElse(null));
        doc.put("spec_file", specFile.map(Path::toString).orElse(null));
        doc.put("spec", result.map(ClusterImport.Result::specYaml).orElse(null));
        doc.put("members", result.map(ClusterImport.Result::members).orElse(List.of()));
        doc.put("etcd_version", result.map(ClusterImport.Result::version).orElse(null));
        doc.put("data_dir", result.map(ClusterImport.Result::dataDir).orElse(null));
        doc.put("pki_dir", pkiDir.map(Path::toString).orElse(null));
        doc.put("trust_only", result.map(ClusterImport.Result::trustOnly).orElse(false));
        doc.put("notes", List.copyOf(notes));
        doc.put("refusals", List.copyOf(refusals));
        return doc;
    }

    private List<InventoryHost> hosts(Inventory inventory) {
        List<InventoryHost> hosts;
        if (limit != null) {
            hosts = inventory.limit(limit);
        } else if (inventory.groups().containsKey("etcd")) {
            hosts = inventory.limit("etcd");
        } else {
            hosts = List.copyOf(inventory.hosts().values());
        }
        if (hosts.isEmpty()) {
            throw new IllegalArgumentException("no hosts to read" + (limit == null ? "" : " (--limit " + limit + ")"));
        }
        return hosts;
    }

    private ClusterImport.Result importCluster(Inventory inventory, List<InventoryHost> hosts, List<String> notes) {
        List<ClusterImport.HostReading> readings = new ArrayList<>();
        Map<String, ForeignHost.Reading> raw = new LinkedHashMap<>();
        try (SshConnections connections = Hosts.connect(inventory, connection.settings())) {
            List<String> refusals = new ArrayList<>();
            Map<String, ForeignHost> readers = new LinkedHashMap<>();
            for (InventoryHost h : hosts) {
                ForeignHost reader = new ForeignHost(h.name(), connections.session(Hosts.target(h)));
                try {
                    ForeignHost.Reading r = reader.read();
                    readers.put(h.name(), reader);
                    raw.put(h.name(), r);
                    readings.add(new ClusterImport.HostReading(new ClusterImport.InventoryMember(h.name(), h.memberName(),
                            h.etcdAddress()), r.member(), r.version(), r.caPem(), r.dropIns()));
                } catch (ClusterImport.Refused refused) {
                    refusals.addAll(refused.reasons());
                } catch (io.etcdwright.modules.adopt.UnitSyntaxException bad) {
                    refusals.add(h.name() + ": " + bad.getMessage());
                }
            }
            if (!refusals.isEmpty()) {
                throw new ClusterImport.Refused(refusals);
            }
            List<String> problems = ClusterImport.hostProblems(readings);
            if (!problems.isEmpty()) {
                throw new ClusterImport.Refused(problems);
            }
            String clusterName = ClusterImport.clusterName(Optional.ofNullable(name), readings);
            Path pkiDir = EtcdwrightHome.pkiDir(clusterName);
            Optional<ClusterImport.TrustOnly> trustOnly = Optional.empty();
            if (ClusterImport.needsCa(ClusterImport.transport(readings))) {
                trustOnly = importCa(hosts, readings, raw, readers, pkiDir, notes);
            } else {
                notes.add("no CA to import (plain HTTP on both sides): etcdwright makes its own in " + pkiDir
                        + " and issues the members' certificates from it, unused until the spec says mutual-tls");
            }
            Pki defaults = Pki.defaults();
            ClusterPki pki = new ClusterPki(new ClusterPki.Settings(clusterName, pkiDir, Optional.empty(), Optional.empty(),
                    KeyAlgorithm.fromName(defaults.keyAlgorithm()), Duration.ofDays(defaults.validityDays()),
                    Duration.ofDays(defaults.renewBeforeDays()), Duration.ofDays(defaults.caValidityDays()), List.of()),
                    Clock.systemUTC());
            ClusterPki.LocalPair admin = pki.clientPair(HostCertificates.ADMIN);
            if (trustOnly.isEmpty()) {
                // The admin client the plan would issue anyway: it asks etcd for the members, as apply will.
                pki.ensure(admin, pki.clientRequest(HostCertificates.ADMIN));
            } else {
                adminClient(admin, raw, readers, pki.caCertFile(), notes);
            }
            List<String> urls = readings.stream().map(r -> r.member().urls("advertise-client-urls").get(0).toString()).toList();
            ClusterStatus status;
            try (EtcdHttp client = EtcdHttp.connect(urls, pki.caCertFile(), admin.cert(), admin.key(),
                    Duration.ofSeconds(10))) {
                status = client.status();
            }
            if (!status.quorum()) {
                throw new ClusterImport.Refused(List.of("the cluster does not serve linearizable reads (no quorum): import reads"
                        + " a healthy cluster; repair it first"));
            }
            List<ClusterImport.ListedMember> listed = status.members().stream()
                    .map((MemberStatus m) -> new ClusterImport.ListedMember(m.name(), m.peerUrls(), m.learner())).toList();
            return ClusterImport.describe(clusterName, readings, listed, trustOnly,
                    new ClusterImport.Artifacts(Optional.ofNullable(artifactsUrl), Optional.ofNullable(checksumsUrl)));
        }
    }

    /**
     * The CA the members trust into the workstation's PKI directory: with its key, or without it
     * (trust-only: the certificate alone, and where the members keep their own certificates).
     */
    private Optional<ClusterImport.TrustOnly> importCa(List<InventoryHost> hosts, List<ClusterImport.HostReading> readings, Map<String, ForeignHost.Reading> raw,
                          Map<String, ForeignHost> readers, Path pkiDir, List<String> notes) {
        String caPem = readings.get(0).caPem();
        String caSource = hosts.get(0).name() + ":" + readings.get(0).member().trustedCaFile().orElseThrow();
        String keyPem;
        String keySource;
        if (caKey != null) {
            keyPem = Pem.readFile(caKey, "CA key");
            keySource = caKey.toString();
        } else {
            Optional<String> on = raw.keySet().stream().filter(h -> raw.get(h).caKeyPath().isPresent()).findFirst();
            if (on.isEmpty()) {
                return Optional.of(trustOnly(readings, raw, caPem, pkiDir));
            }
            String path = raw.get(on.get()).caKeyPath().get();
            keyPem = readers.get(on.get()).readSecret(path);
            keySource = on.get() + ":" + path;
            notes.add("the CA key is on host " + on.get() + " (" + path + "): etcdwright keeps CA keys off hosts;"
                    + " once the import is done and a copy is safe, remove it there");
        }
        CertificateAuthority.of(caPem, caSource, keyPem, keySource, Clock.systemUTC()).writeTo(pkiDir);
        return Optional.empty();
    }

    /**
     * No CA key anywhere: the CA certificate alone into the PKI directory (named by the spec's
     * tls.pki.ca.cert), the members' certificate paths for tls.pki.fromHosts.
     */
    private ClusterImport.TrustOnly trustOnly(List<ClusterImport.HostReading> readings, Map<String, ForeignHost.Reading> raw,
                                              String caPem, Path pkiDir) {
        Optional<String> healthcheck = raw.values().iterator().next().clientCertPath()
                .filter(c -> c.endsWith("/healthcheck-client.crt") && raw.values().stream()
                        .allMatch(r -> r.clientCertPath().equals(Optional.of(c))));
        Map<String, io.etcdwright.engine.spec.Pki.HostFiles> fromHosts = ClusterImport.fromHosts(readings, healthcheck);
        Pem.readCertificate(caPem, "the CA certificate");
        Path caFile = pkiDir.resolve(CertificateAuthority.CERTIFICATE_FILE).toAbsolutePath();
        io.etcdwright.modules.pki.SecureFiles.writePublic(caFile, caPem.strip() + "\n", "CA certificate");
        return new ClusterImport.TrustOnly(caFile.toString(), fromHosts);
    }

    /**
     * Trust-only: the admin client etcdwright connects with, which it cannot issue: the operator's
     * (--client-cert/--client-key) or one found on a member, copied into the PKI directory (the key
     * 0600, never printed). It must be a client certificate of the cluster's CA.
     */
    private void adminClient(ClusterPki.LocalPair admin, Map<String, ForeignHost.Reading> raw, Map<String, ForeignHost> readers,
                             Path caFile, List<String> notes) {
        String certPem;
        String keyPem;
        String source;
        if (clientCert != null) {
            certPem = Pem.readFile(clientCert, "client certificate");
            keyPem = Pem.readFile(clientKey, "client key");
            source = clientCert.toString();
        } else {
            Optional<String> on = raw.keySet().stream().filter(h -> raw.get(h).clientCertPath().isPresent()).findFirst();
            if (on.isEmpty()) {
                throw new ClusterImport.Refused(List.of("no CA key and no client certificate: etcdwright needs one for its own"
                        + " connection (health checks, member list, snapshots) and cannot issue it without the CA key; give one"
                        + " issued from the cluster's CA with --client-cert FILE --client-key FILE, or the CA key with --ca-key FILE"));
            }
            String path = raw.get(on.get()).clientCertPath().get();
            certPem = readers.get(on.get()).readPublic(path).orElseThrow(() -> new ClusterImport.Refused(List.of(on.get()
                    + ": cannot read " + path)));
            keyPem = readers.get(on.get()).readSecret(ForeignHost.keyOf(path));
            source = on.get() + ":" + path;
        }
        List<String> problems = new io.etcdwright.modules.pki.RenewalPolicy(Duration.ZERO).inUse(Optional.of(certPem), source,
                io.etcdwright.modules.pki.Purpose.CLIENT, List.of(), Pem.readCertificate(Pem.readFile(caFile, "CA certificate"),
                        caFile.toString()), java.time.Instant.now());
        if (!problems.isEmpty()) {
            throw new ClusterImport.Refused(List.of("the client certificate " + source + " cannot be etcdwright's: "
                    + String.join("; ", problems) + "; give another with --client-cert FILE --client-key FILE, or the CA key"
                    + " with --ca-key FILE"));
        }
        io.etcdwright.modules.pki.SecureFiles.writePublic(admin.cert(), certPem.strip() + "\n", "admin client certificate");
        io.etcdwright.modules.pki.SecureFiles.writePrivate(admin.key(), keyPem, "admin client key");
        notes.add("etcdwright's admin client (for health checks, member list, snapshots) is " + source + ", copied to "
                + admin.cert() + " (its key 0600, on the workstation only); trust-only, replace it there yourself before"
                + " it expires");
    }

    /** The spec, checked as plan would load it, then written where the operator asked (or printed, when {@code stdout} is given). */
    private void write(String yaml, PrintWriter stdout) {
        try {
            Path dir = out == null ? Path.of(System.getProperty("java.io.tmpdir")) : out.toAbsolutePath().getParent();
            Path tmp = Files.createTempFile(dir, ".import-", ".yaml");
            try {
                Files.writeString(tmp, yaml, StandardOpenOption.TRUNCATE_EXISTING);
                try {
                    DesiredStateLoader.load(inventoryFile, tmp);
                } catch (InvalidInputException invalid) {
                    // What etcdwright would refuse in the spec it was about to write (a setting it does not take, say).
                    throw new ClusterImport.Refused(invalid.problems().stream()
                            .map(p -> "the spec import would write is not valid: " + p.toString().replace(tmp.toString(), "SPEC"))
                            .toList());
                }
                if (out == null) {
                    if (stdout != null) {
                        stdout.print(yaml);
                    }
                } else {
                    Files.move(tmp, out);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + out + ": " + e.getMessage(), e);
        }
    }
}
