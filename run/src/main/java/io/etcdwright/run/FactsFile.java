package io.etcdwright.run;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.facts.HostFacts;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Location;
import io.etcdwright.engine.source.Problem;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.cluster.FactsView;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.membership.ClusterStatus;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Recorded facts: what {@code etcdwright facts -o json} prints and {@code plan --facts FILE} plans
 * from. The raw output of every probe is the source of truth: loading parses it again with the
 * same probes, so an offline plan sees exactly what the live one saw. The parsed view beside it
 * (FactsView's keys, as {@code facts -o json} always printed them) and the cluster's view are for
 * people and scripts, and are ignored on load.
 *
 * <pre>
 * {"format": "etcdwright-facts/1", "gathered_at": "...", "cluster": "three" | null,
 *  "hosts": [{"host": "h1", "address": "10.77.0.11", "reachable": true, "gather_ms": 80, "clock_skew_ms": 3,
 *             ...FactsView..., "probe_arguments": {"etcd_files": [...], ...}, "probes": {"system": "os=...", ...}},
 *            {"host": "h2", "address": "...", "reachable": false, "reason": "timeout", "message": "..."}],
 *  "cluster_facts": {...} | null}
 * </pre>
 *
 * No secret is in it: key files are probed by digest only, never read.
 */
public final class FactsFile {
    public static final String FORMAT = "etcdwright-facts/1";

    /** 1,000 hosts of facts are a few tens of megabytes; more is not a facts file. */
    public static final long MAX_BYTES = 256L * 1024 * 1024;
    private static final JsonFactory JSON = JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder()
                    .maxNestingDepth(64).maxStringLength(16 * 1024 * 1024).maxNumberLength(32).build())
            .build();
    private static final ObjectMapper READER = new ObjectMapper(JSON)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private FactsFile() {
    }

    /** The document for {@code facts -o json}; {@code cluster} is the spec's cluster name, or null without a spec. */
    public static Map<String, Object> document(String cluster, Instant gatheredAt, ClusterRun.Facts facts, EtcdProbes probes) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("format", FORMAT);
        // The output format's version, as every read command's JSON carries it (schemas/facts.schema.json).
        doc.put("version", 1);
        doc.put("gathered_at", gatheredAt.toString());
        doc.put("cluster", cluster);
        List<Map<String, Object>> hosts = new ArrayList<>();
        Map<String, List<String>> arguments = new LinkedHashMap<>();
        probes.all().forEach(p -> arguments.put(p.name(), p.arguments()));
        for (HostReport report : facts.reports()) {
            String address = facts.addresses().getOrDefault(report.host(), "");
            if (report instanceof HostReport.Reachable r) {
                // Every reachable host, a leaving member's too (it is not among the members' facts).
                EtcdHostFacts typed = EtcdHostFacts.from(r.facts(), probes);
                Map<String, Object> host = new LinkedHashMap<>(FactsView.of(address, typed, r.facts().gatherTime(),
                        r.facts().clockSkewMillis()));
                host.put("probe_arguments", arguments);
                Map<String, String> raw = new LinkedHashMap<>();
                probes.all().forEach(p -> {
                    String out = r.facts().rawByProbe().get(p.name());
                    if (out != null) {
                        raw.put(p.name(), out);
                    }
                });
                host.put("probes", raw);
                hosts.add(host);
            } else if (report instanceof HostReport.Unreachable u) {
                hosts.add(FactsView.unreachable(u.host(), address, u.reason().name(), u.message()));
            }
        }
        doc.put("hosts", hosts);
        // Hosts that hold client files without running a member: their one probe's raw output.
        List<Map<String, Object>> clients = new ArrayList<>();
        for (HostReport report : facts.clientReports()) {
            Map<String, Object> host = new LinkedHashMap<>();
            host.put("host", report.host());
            if (report instanceof HostReport.Reachable r) {
                host.put("reachable", true);
                host.put("probe_arguments", Map.of(ClientHostFacts.PROBE.name(), ClientHostFacts.PROBE.arguments()));
                host.put("probes", Map.of(ClientHostFacts.PROBE.name(), r.facts().rawByProbe().getOrDefault(ClientHostFacts.PROBE.name(), "")));
            } else if (report instanceof HostReport.Unreachable u) {
                host.put("reachable", false);
                host.put("reason", u.reason().name());
                host.put("message", u.message());
            }
            clients.add(host);
        }
        doc.put("client_hosts", clients);
        doc.put("cluster_facts", facts.cluster().map(FactsFile::clusterView).orElse(null));
        return doc;
    }

    /** The cluster's view as JSON keys (informational: loading derives it again from the probes). */
    public static Map<String, Object> clusterView(ClusterStatus c) {
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("cluster_id", c.clusterId().orElse(null));
        v.put("cluster_version", c.clusterVersion().orElse(null));
        v.put("quorum", c.quorum());
        v.put("leader", c.leader().map(m -> m.name().isEmpty() ? m.id() : m.name()).orElse(null));
        v.put("alarms", c.alarms());
        v.put("members", c.members());
        return v;
    }

    /**
     * The facts of the spec's member hosts as recorded in {@code file}, typed by {@code probes}.
     *
     * @throws InvalidInputException ("FILE:line:col: error: field: message") when the file cannot
     *         be read, is not a facts file, is of another format or cluster, was recorded with
     *         other probe arguments (paths, ports) than this spec's, or lacks a host of the spec
     */
    public static ClusterRun.Facts load(Path file, String cluster, List<InventoryHost> members, Map<String, InventoryHost> inventory,
                                 EtcdProbes probes) {
        List<String> hostNames = members.stream().map(InventoryHost::name).toList();
        String text = readText(file);
        JsonNode doc;
        try {
            doc = READER.readTree(text);
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            throw problem(file, at, "", "is not a facts file (not JSON: " + e.getOriginalMessage() + ")");
        }
        if (doc == null || !doc.isObject()) {
            throw problem(file, null, "", "is not a facts file written by 'etcdwright facts -o json' (expected a JSON object)");
        }
        if (!FORMAT.equals(doc.path("format").asText(null))) {
            throw problem(file, null, "format", "is " + doc.path("format") + ", expected \"" + FORMAT
                    + "\": record the facts again with this etcdwright ('etcdwright facts -i INVENTORY -f SPEC -o json')");
        }
        JsonNode recordedCluster = doc.path("cluster");
        if (!recordedCluster.isTextual()) {
            throw problem(file, null, "cluster", "the facts were recorded without -f SPEC (for no cluster), this plan is"
                    + " for cluster " + cluster + ": record them with 'etcdwright facts -i INVENTORY -f SPEC -o json'");
        }
        if (!recordedCluster.asText().equals(cluster)) {
            throw problem(file, null, "cluster", "the facts are of cluster " + recordedCluster.asText()
                    + ", this plan is for cluster " + cluster);
        }
        if (!doc.path("hosts").isArray()) {
            throw problem(file, null, "hosts", "must be an array of hosts");
        }
        Map<String, JsonNode> byName = new LinkedHashMap<>();
        int i = 0;
        for (JsonNode h : doc.path("hosts")) {
            if (!h.path("host").isTextual() || h.path("host").asText().isEmpty()) {
                throw problem(file, null, "hosts[" + i + "].host", "must be a host name");
            }
            if (byName.put(h.path("host").asText(), h) != null) {
                throw problem(file, null, "hosts[" + i + "].host", "host " + h.path("host").asText() + " is listed twice");
            }
            i++;
        }
        List<HostReport> reports = new ArrayList<>();
        List<String> missing = hostNames.stream().filter(h -> !byName.containsKey(h)).toList();
        if (!missing.isEmpty()) {
            throw problem(file, null, "hosts", "no facts of " + String.join(", ", missing) + " (a member host of the spec):"
                    + " record them with 'etcdwright facts -i INVENTORY -f SPEC -o json' and no --limit");
        }
        for (String name : hostNames) {
            reports.add(report(file, name, byName.get(name), probes.all()));
        }
        // As a live gathering does: members the spec no longer lists answer for themselves, from
        // their hosts' recorded facts.
        java.util.Set<String> memberHosts = new java.util.LinkedHashSet<>(hostNames);
        List<HostReport> clients = clientReports(file, doc);
        ClusterRun.Facts facts = ClusterRun.Facts.of(reports, probes, inventory, memberHosts).withClientHosts(clients);
        List<InventoryHost> leaving = facts.leavingHosts(inventory);
        if (leaving.isEmpty()) {
            return facts;
        }
        for (InventoryHost h : leaving) {
            if (!byName.containsKey(h.name())) {
                throw problem(file, null, "hosts", "no facts of " + h.name() + ", where the cluster lists a member the spec"
                        + " does not (a live plan asks it): record the facts again with 'etcdwright facts -i INVENTORY -f SPEC -o json'");
            }
            reports.add(report(file, h.name(), byName.get(h.name()), probes.all()));
        }
        return ClusterRun.Facts.of(reports, probes, inventory, memberHosts).withClientHosts(clients);
    }

    /** The recorded client hosts (absent in facts recorded before them: none), read with their one probe. */
    private static List<HostReport> clientReports(Path file, JsonNode doc) {
        List<HostReport> reports = new ArrayList<>();
        for (JsonNode h : doc.path("client_hosts")) {
            String name = h.path("host").asText("");
            if (name.isEmpty()) {
                throw problem(file, null, "client_hosts", "each entry must name its host");
            }
            reports.add(report(file, name, h, List.of(ClientHostFacts.PROBE)));
        }
        return reports;
    }

    private static HostReport report(Path file, String name, JsonNode h, List<? extends Probe<?>> probes) {
        String field = "hosts[" + name + "]";
        if (!h.path("reachable").asBoolean(false)) {
            SshException.Reason reason;
            try {
                reason = SshException.Reason.valueOf(h.path("reason").asText("").toUpperCase());
            } catch (IllegalArgumentException e) {
                throw problem(file, null, field + ".reason", "is " + h.path("reason") + ", not a reason etcdwright records");
            }
            return new HostReport.Unreachable(name, reason, h.path("message").asText(""));
        }
        return new HostReport.Reachable(hostFacts(file, field, name, h, probes));
    }

    private static HostFacts hostFacts(Path file, String field, String name, JsonNode h, List<? extends Probe<?>> probes) {
        JsonNode raw = h.path("probes");
        if (!raw.isObject()) {
            throw problem(file, null, field + ".probes", "must be an object of each probe's raw output");
        }
        JsonNode recordedArgs = h.path("probe_arguments");
        Map<String, Object> parsed = new LinkedHashMap<>();
        Map<String, String> rawByProbe = new LinkedHashMap<>();
        for (Probe<?> probe : probes) {
            JsonNode out = raw.path(probe.name());
            if (out.isMissingNode() && probe.outputWhenNotRecorded().isPresent()) {
                // A probe added later (scheduled backups): the recording predates it.
                rawByProbe.put(probe.name(), probe.outputWhenNotRecorded().get());
                parsed.put(probe.name(), probe.parse(probe.outputWhenNotRecorded().get()));
                continue;
            }
            if (!out.isTextual()) {
                throw problem(file, null, field + ".probes." + probe.name(), "is missing: the facts were recorded by an"
                        + " etcdwright without this probe; record them again");
            }
            List<String> args = new ArrayList<>();
            recordedArgs.path(probe.name()).forEach(a -> args.add(a.asText()));
            if (!args.equals(probe.arguments())) {
                // The raw output answers the questions asked then (files by position, paths, ports):
                // read with other arguments it would be misread, not just outdated.
                throw problem(file, null, field + ".probe_arguments." + probe.name(), "the facts were recorded for "
                        + args + ", this spec asks for " + probe.arguments() + " (other paths or ports): record them again");
            }
            rawByProbe.put(probe.name(), out.asText());
            parsed.put(probe.name(), probe.parse(out.asText()));
        }
        return new HostFacts(name, parsed, rawByProbe, Duration.ofMillis(h.path("gather_ms").asLong(0)),
                h.path("clock_skew_ms").asLong(0));
    }

    private static String readText(Path file) {
        try {
            if (!Files.isRegularFile(file)) {
                throw problem(file, null, "", "no such file");
            }
            if (Files.size(file) > MAX_BYTES) {
                throw problem(file, null, "", "is larger than " + MAX_BYTES / (1024 * 1024) + " MiB: not a facts file");
            }
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(java.nio.ByteBuffer.wrap(Files.readAllBytes(file))).toString();
        } catch (CharacterCodingException e) {
            throw problem(file, null, "", "is not UTF-8 text: not a facts file");
        } catch (IOException e) {
            throw problem(file, null, "", "cannot be read: " + e.getMessage());
        }
    }

    private static InvalidInputException problem(Path file, JsonLocation at, String field, String message) {
        int line = at == null || at.getLineNr() < 1 ? 1 : at.getLineNr();
        int column = at == null || at.getColumnNr() < 1 ? 1 : at.getColumnNr();
        return new InvalidInputException(Problem.error(new Location(file, line, column), field, message));
    }
}
