package io.etcdwright.run;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.facts.FilesProbe;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.pki.CertificateReport;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.KeyFilesProbe;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Every certificate of a cluster ({@code certs}): the workstation's PKI and every member's (and
 * client host's) copies, one round trip a host.
 *
 * @param unreachable the hosts that could not be read, and why
 * @param readOnly    read from a read-only runner: the PKI's own copies are not here to compare with
 */
public record CertificateSurvey(List<CertificateReport.Entry> entries, Map<String, String> unreachable, boolean readOnly) {
    static final Probe<Map<String, FileState>> CERTIFICATE_FILES = new FilesProbe("certificate-files",
            HostCertificates.allCertPaths(), new LinkedHashSet<>(HostCertificates.allCertPaths()));
    static final KeyFilesProbe KEY_FILES = new KeyFilesProbe("key-files", HostCertificates.allKeyPaths());

    /** Surveys {@code run}'s cluster. */
    public static CertificateSurvey of(ClusterRun run) {
        ClusterPki pki = run.pki();
        List<ClusterPki.MemberIdentity> members = run.desired().members().stream()
                .map(m -> new ClusterPki.MemberIdentity(m.name(), m.host().name(), m.address())).toList();
        List<CertificateReport.Entry> entries = new ArrayList<>(CertificateReport.workstation(pki, members));
        List<Member> specMembers = run.desired().members();
        List<HostReport> reports = run.ask(specMembers.stream().map(Member::host).toList(), List.of(CERTIFICATE_FILES, KEY_FILES));
        Map<String, String> unreachable = new LinkedHashMap<>();
        for (int i = 0; i < specMembers.size(); i++) {
            HostReport report = reports.get(i);
            if (report instanceof HostReport.Reachable ok) {
                var files = new CertificateReport.HostFiles(ok.facts().get(CERTIFICATE_FILES), ok.facts().get(KEY_FILES));
                entries.addAll(CertificateReport.host(report.host(), pki, members.get(i), files));
            } else if (report instanceof HostReport.Unreachable down) {
                unreachable.put(down.host(), down.message());
            }
        }
        // Hosts that hold client files without running a member: their CA file and client pairs.
        List<InventoryHost> clientHosts = ClientHostFacts.hostsToAsk(run.desired(), pki);
        for (HostReport report : run.ask(clientHosts, List.of(CERTIFICATE_FILES, KEY_FILES))) {
            if (report instanceof HostReport.Reachable ok) {
                var files = new CertificateReport.HostFiles(ok.facts().get(CERTIFICATE_FILES), ok.facts().get(KEY_FILES));
                entries.addAll(CertificateReport.clientHost(report.host(), pki, files));
            } else if (report instanceof HostReport.Unreachable down) {
                unreachable.put(down.host(), down.message());
            }
        }
        return new CertificateSurvey(List.copyOf(entries), unreachable, pki.readOnly());
    }
}
