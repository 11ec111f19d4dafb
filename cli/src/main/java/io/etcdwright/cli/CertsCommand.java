package io.etcdwright.cli;

import io.etcdwright.run.CertificateSurvey;
import io.etcdwright.run.ClusterRun;
import io.etcdwright.engine.output.Json;
import io.etcdwright.modules.pki.CertificateReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;

@Command(name = "certs", description = {"List every certificate of the cluster, on the workstation and on each member host.",
        "The workstation's PKI directory and each member host's copies (read over SSH, one round trip a host): kind, subject,",
        "SANs, issuer, expiry and days left; for a host's copy whether it is the workstation's certificate, and whether its",
        "key file (never read off the host: its public half is derived there with openssl) belongs to it.",
        "Exits 2 when a certificate expires within --expiring-within days (for CI and monitoring), 1 when a host could",
        "not be read or a certificate is damaged, 0 otherwise."},
        subcommands = {CertsIssueReaderCommand.class})
final class CertsCommand implements Callable<Integer> {
    /** The version of {@code -o json}'s document (schemas/certs.schema.json); raised when a field changes meaning. */
    static final int JSON_VERSION = 1;

    @Mixin
    FleetOptions input;

    @Mixin
    ConnectionOptions connection;

    @Option(names = {"-o", "--output"}, defaultValue = "text", paramLabel = "text|json", description = "Output format.")
    OutputFormat output;

    @Option(names = "--expiring-within", paramLabel = "DAYS",
            description = "Exit 2 when any certificate expires within DAYS days (or has expired). Without it, expiry does not change the exit code.")
    Integer expiringWithinDays;

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        if (expiringWithinDays != null && expiringWithinDays < 0) {
            throw new IllegalArgumentException("--expiring-within must be 0 or more days, got " + expiringWithinDays);
        }
        Optional<Duration> within = Optional.ofNullable(expiringWithinDays).map(Duration::ofDays);
        if (input.fleet()) {
            return Fleet.run("certs", input, FLEET_COLUMNS, desired -> certsOne(desired, within), output == OutputFormat.json,
                    spec.commandLine().getOut(), spec.commandLine().getErr());
        }
        try (ClusterRun run = ClusterRun.open(input.single().inventory, input.single().spec, connection.settings())) {
            Findings found = collect(run);
            Instant now = Instant.now();
            PrintWriter out = spec.commandLine().getOut();
            if (output == OutputFormat.json) {
                out.println(Json.write(document(run.desired().spec().name(), found.entries(), found.unreachable(), now, within)));
            } else {
                found.text(now, within).forEach(out::println);
            }
            return exitCode(found.entries(), found.unreachable(), now, within);
        }
    }

    /** The fleet's summary columns (docs/fleets.md). */
    static final List<Fleet.Column> FLEET_COLUMNS = List.of(new Fleet.Column("CERTIFICATES", "certificates"),
            new Fleet.Column("EXPIRING", "expiring"), new Fleet.Column("SOONEST (DAYS)", "soonest_days"));

    /** One cluster of a fleet, as certs of it alone. */
    private Fleet.Outcome certsOne(io.etcdwright.engine.spec.DesiredState desired, Optional<Duration> within) {
        try (ClusterRun run = ClusterRun.of(desired, connection.settings())) {
            Findings found = collect(run);
            Instant now = Instant.now();
            int exit = exitCode(found.entries(), found.unreachable(), now, within);
            Map<String, Object> counts = new LinkedHashMap<>();
            counts.put("certificates", found.entries().stream().filter(e -> e.certificate().isPresent()).count());
            counts.put("expiring", within.map(w -> found.entries().stream().filter(e -> e.expiresWithin(now, w)).count()).orElse(null));
            counts.put("soonest_days", soonest(found.entries()).map(e -> e.certificate().get().daysUntilExpiry(now)).orElse(null));
            Fleet.Verdict verdict = exit == Main.ERROR ? Fleet.Verdict.ERROR : exit == Main.CHANGES ? Fleet.Verdict.EXPIRING
                    : Fleet.Verdict.OK;
            return new Fleet.Outcome(verdict, exit, String.join("\n", found.text(now, within)) + "\n",
                    Json.mapper().valueToTree(document(desired.spec().name(), found.entries(), found.unreachable(), now, within)),
                    counts);
        }
    }

    /** Every certificate of the cluster, and the hosts that could not be read. */
    record Findings(List<CertificateReport.Entry> entries, Map<String, String> unreachable, boolean readOnly) {
        /** The text, and on a read-only runner what it could not compare. */
        List<String> text(Instant now, Optional<Duration> within) {
            List<String> lines = new ArrayList<>(CertsCommand.text(entries, unreachable, now, within));
            if (readOnly) {
                lines.add("read-only runner: the PKI's own copies (the members' issued certificates, admin,"
                        + " kube-apiserver) are not here, so no host copy was compared with them; each was read as"
                        + " the host holds it");
            }
            return lines;
        }
    }

    /** The workstation's PKI and every member's (and client host's) copies, one round trip a host. */
    static Findings collect(ClusterRun run) {
        CertificateSurvey survey = CertificateSurvey.of(run);
        return new Findings(survey.entries(), survey.unreachable(), survey.readOnly());
    }

    /** 1 when something could not be read (it may hide an expiry), else 2 when anything expires within the window. */
    static int exitCode(List<CertificateReport.Entry> entries, Map<String, String> unreachable, Instant now,
                        Optional<Duration> within) {
        if (!unreachable.isEmpty() || entries.stream().anyMatch(CertificateReport.Entry::damaged)) {
            return Main.ERROR;
        }
        if (within.isPresent() && entries.stream().anyMatch(e -> e.expiresWithin(now, within.get()))) {
            return Main.CHANGES;
        }
        return Main.OK;
    }

    static Map<String, Object> document(String cluster, List<CertificateReport.Entry> entries, Map<String, String> unreachable,
                                        Instant now, Optional<Duration> within) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("version", JSON_VERSION);
        doc.put("cluster", cluster);
        doc.put("checked_at", now.toString());
        doc.put("expiring_within_days", within.map(Duration::toDays).orElse(null));
        doc.put("expiring", within.map(w -> entries.stream().filter(e -> e.expiresWithin(now, w)).count()).orElse(null));
        doc.put("soonest", soonest(entries).map(e -> {
            Map<String, Object> s = new LinkedHashMap<>();
            s.put("location", e.location());
            s.put("path", e.path());
            s.put("not_after", e.certificate().get().notAfter().toString());
            s.put("days_left", e.certificate().get().daysUntilExpiry(now));
            return s;
        }).orElse(null));
        doc.put("unreachable", unreachable);
        doc.put("certificates", entries.stream().map(e -> CertificateReport.json(e, now, within)).toList());
        return doc;
    }

    static List<String> text(List<CertificateReport.Entry> entries, Map<String, String> unreachable, Instant now,
                             Optional<Duration> within) {
        List<String> lines = new ArrayList<>();
        Set<String> locations = new LinkedHashSet<>();
        entries.forEach(e -> locations.add(e.location()));
        for (String location : locations) {
            lines.add(location.equals(CertificateReport.WORKSTATION) ? "workstation:" : location + ":");
            entries.stream().filter(e -> e.location().equals(location))
                    .forEach(e -> lines.addAll(CertificateReport.text(e, now, within)));
        }
        unreachable.forEach((host, why) -> lines.add(host + ": NOT READ: " + why));
        long present = entries.stream().filter(e -> e.certificate().isPresent()).count();
        String summary = present + " certificates";
        Optional<CertificateReport.Entry> first = soonest(entries);
        if (first.isPresent()) {
            var c = first.get().certificate().get();
            summary += "; soonest expiry " + c.notAfter() + " (" + c.daysUntilExpiry(now) + " days): "
                    + first.get().location() + " " + first.get().path();
        }
        if (within.isPresent()) {
            long expiring = entries.stream().filter(e -> e.expiresWithin(now, within.get())).count();
            summary += "; " + expiring + " expiring within " + within.get().toDays() + " days";
        }
        lines.add(summary);
        return lines;
    }

    private static Optional<CertificateReport.Entry> soonest(List<CertificateReport.Entry> entries) {
        return entries.stream().filter(e -> e.certificate().isPresent())
                .min(Comparator.comparing((CertificateReport.Entry e) -> e.certificate().get().notAfter()));
    }
}
