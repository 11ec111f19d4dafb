package io.etcdwright.modules.cluster;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.pki.CaRotationFiles;
import io.etcdwright.modules.pki.CaRotationFiles.Phase;
import io.etcdwright.modules.pki.CertificateInfo;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.Pem;
import io.etcdwright.modules.pki.PkiException;

import java.nio.file.Files;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * Where a CA rotation stands, derived from what the hosts hold (which CAs each host's ca.crt
 * trusts, whether its running etcd started after that file was written, which CA signed each of its
 * certificates) and from the workstation (its CA, its client certificates, the old CAs recorded when
 * the rotation began). The workstation's recorded phase is not trusted alone: a rotation is under way
 * exactly when a member trusts a CA other than the workstation's, or the record names old CAs.
 *
 * @param phase  the first phase not yet done on every member
 * @param oldCas the CAs being replaced
 * @param newCa  the workstation's CA; empty while a new generation is still to be generated
 * @param hosts  each member host's state, by host, in the spec's member order
 */
public record CaRotation(Phase phase, List<X509Certificate> oldCas, Optional<X509Certificate> newCa,
                         Map<String, HostState> hosts) {

    /**
     * One member host.
     *
     * @param trusted       the CA certificates in its ca.crt
     * @param caLoaded      etcd runs and started after ca.crt was last written (it reads that file only at start)
     * @param leavesFromNew its server, peer and healthcheck certificates (and the client ones it is given) are of the new CA
     */
    public record HostState(List<X509Certificate> trusted, boolean caLoaded, boolean leavesFromNew) {
        boolean trustsExactly(List<X509Certificate> cas) {
            return caLoaded && CaRotationFiles.sameSet(trusted, cas);
        }

        boolean trusts(X509Certificate ca) {
            return caLoaded && trusted.stream().anyMatch(c -> CaRotationFiles.same(c, ca));
        }
    }

    /** The CAs members trust while both are in use: the old ones and the new one. */
    List<X509Certificate> bundle() {
        return newCa.map(n -> Stream.concat(oldCas.stream(), Stream.of(n)).toList()).orElse(oldCas);
    }

    /** The rotation under way, if any: none for a cluster whose members trust exactly the workstation's CA. */
    public static Optional<CaRotation> of(ClusterPki pki, DesiredState desired, Map<String, EtcdHostFacts> facts) {
        boolean pending = pki.generationPending();
        Optional<X509Certificate> target = pending ? Optional.empty() : pki.caCertificate();
        CaRotationFiles files = pki.rotation();
        List<X509Certificate> seen = new ArrayList<>(files.oldCas());
        if (pending) {
            pki.caCertificate().ifPresent(seen::add);
        }
        Map<String, List<X509Certificate>> trustedBy = new LinkedHashMap<>();
        for (Member m : desired.members()) {
            EtcdHostFacts f = facts.get(m.host().name());
            List<X509Certificate> trusted = f == null ? List.of() : trusted(f.file(HostCertificates.certPath(HostCertificates.CA)));
            trustedBy.put(m.host().name(), trusted);
            seen.addAll(trusted);
        }
        boolean anyHostTrusts = trustedBy.values().stream().anyMatch(t -> !t.isEmpty());
        if (!anyHostTrusts && !files.active()) {
            return Optional.empty(); // a new cluster: nothing trusts any CA yet, there is nothing to rotate
        }
        List<X509Certificate> old = CaRotationFiles.distinct(seen).stream()
                .filter(c -> target.map(t -> !CaRotationFiles.same(c, t)).orElse(true)).toList();
        if (old.isEmpty() && !files.active()) {
            return Optional.empty();
        }
        Map<String, HostState> hosts = new LinkedHashMap<>();
        for (Member m : desired.members()) {
            String host = m.host().name();
            EtcdHostFacts f = facts.get(host);
            hosts.put(host, new HostState(trustedBy.get(host), f != null && caLoaded(f),
                    f != null && target.isPresent() && leavesFrom(f, target.get(), HostCertificates.clientRoles(desired, host))));
        }
        boolean clientsFromNew = target.isPresent() && HostCertificates.CLIENTS.stream()
                .allMatch(role -> signedBy(pki.clientPair(role).cert(), target.get()));
        CaRotation draft = new CaRotation(Phase.TRUST_BOTH, old, target, hosts);
        boolean dropping = files.recordedPhase().filter(p -> p == Phase.DROP_OLD).isPresent();
        return Optional.of(new CaRotation(phase(draft, clientsFromNew, dropping), old, target, hosts));
    }

    /**
     * The first phase not done on every member. In phase 3 a member may hold the new CA alone in a
     * file its etcd has not loaded yet (stopped before its restart): what it runs with is the bundle
     * phase 1 proved, so with phase 3 recorded it counts as trusting the new CA; phase 3 restarts it.
     */
    private static Phase phase(CaRotation r, boolean clientsFromNew, boolean dropping) {
        if (r.newCa.isEmpty()) {
            return Phase.TRUST_BOTH;
        }
        X509Certificate n = r.newCa.get();
        boolean allTrustNew = r.hosts.values().stream().allMatch(h -> h.trusts(n)
                || (dropping && CaRotationFiles.sameSet(h.trusted(), List.of(n))));
        boolean leavesNew = clientsFromNew && r.hosts.values().stream().allMatch(HostState::leavesFromNew);
        if (allTrustNew && leavesNew) {
            return Phase.DROP_OLD;
        }
        if (r.hosts.values().stream().allMatch(h -> h.trustsExactly(r.bundle()))) {
            return Phase.REISSUE;
        }
        return Phase.TRUST_BOTH;
    }

    /** Hosts whose ca.crt must change to {@code cas}, or whose etcd has not loaded it yet. */
    List<String> hostsNotTrustingExactly(List<X509Certificate> cas) {
        return hosts.entrySet().stream().filter(e -> !e.getValue().trustsExactly(cas)).map(Map.Entry::getKey).toList();
    }

    static List<X509Certificate> trusted(FileState caFile) {
        if (!caFile.exists() || caFile.content().isEmpty()) {
            return List.of();
        }
        try {
            return Pem.readCertificates(caFile.content().get(), caFile.path());
        } catch (PkiException damaged) {
            return List.of(); // trusted by nothing we can name: the file is rewritten in phase 1
        }
    }

    private static boolean caLoaded(EtcdHostFacts f) {
        FileState ca = f.file(HostCertificates.certPath(HostCertificates.CA));
        long started = f.service().startedMicros();
        return f.service().running() && started > 0 && ca.exists() && ca.modifiedMicros() <= started;
    }

    private static boolean leavesFrom(EtcdHostFacts f, X509Certificate ca, java.util.Set<String> clientRoles) {
        List<String> roles = new ArrayList<>(HostCertificates.MEMBER_KEYED);
        roles.addAll(clientRoles);
        return roles.stream().allMatch(role -> {
            FileState file = f.file(HostCertificates.certPath(role));
            return file.exists() && file.content().map(pem -> issuedBy(pem, file.path(), ca)).orElse(false);
        });
    }

    /** Whether the certificate in this workstation file is one {@code ca} issued; false when there is none. */
    static boolean signedBy(java.nio.file.Path cert, X509Certificate ca) {
        try {
            return Files.exists(cert) && issuedBy(Files.readString(cert), cert.toString(), ca);
        } catch (java.io.IOException e) {
            return false;
        }
    }

    static boolean issuedBy(String pem, String source, X509Certificate ca) {
        try {
            CertificateInfo info = CertificateInfo.parse(pem, source);
            return info.certificate().getIssuerX500Principal().equals(ca.getSubjectX500Principal()) && info.signedBy(ca);
        } catch (PkiException damaged) {
            return false;
        }
    }
}
