package io.etcdwright.modules.pki;

import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A member's certificates and keys on its host: issued on the workstation when missing, wrong or
 * near expiry, then copied where the host's copy differs. Needs the CA and client certificates
 * first, so its step waits for the workstation's PKI steps.
 */
public final class CertificatesModule implements MemberModule {
    private final ClusterPki pki;
    private final List<Step> workstationSteps;
    private final DesiredState desired;

    /** {@code desired} says which hosts hold the shared client keys (its {@code clients}). */
    public CertificatesModule(ClusterPki pki, List<Step> workstationSteps, DesiredState desired) {
        this.pki = pki;
        this.workstationSteps = List.copyOf(workstationSteps);
        this.desired = desired;
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        ClusterPki.MemberIdentity identity = new ClusterPki.MemberIdentity(member.member().name(), member.host(),
                member.member().address());
        var files = member.facts().files();
        Set<String> clients = HostCertificates.clientRoles(desired, member.host());
        // Client certificates and keys are not etcd's own files: only a CA change restarts it.
        Optional<String> restart = caChanges(files) ? Optional.of(CA_RESTART) : Optional.empty();
        if (pki.trustOnly()) {
            var fromHosts = desired.spec().tls().pki().fromHosts();
            String address = member.member().address();
            return TrustOnlyCertificates.memberStep(member.host(), pki, clients, files, fromHosts,
                            restart.isEmpty() ? Optional.of(NO_RESTART) : Optional.empty())
                    .map(step -> new Change(step.after(workstationSteps),
                            ctx -> TrustOnlyCertificates.apply(ctx.session(), pki, address, clients, files, fromHosts), restart));
        }
        return PkiSteps.memberStep(member.host(), pki, identity, clients, files,
                        restart.isEmpty() ? Optional.of(NO_RESTART) : Optional.empty())
                .map(step -> new Change(step.after(workstationSteps),
                        ctx -> PkiSteps.apply(ctx.session(), pki, identity, clients, files), restart));
    }

    /** Why a CA change restarts: etcd reads --trusted-ca-file and --peer-trusted-ca-file once, at start. */
    public static final String CA_RESTART = "CA certificate changed: etcd reads its CA files only at start";
    /** Why a leaf change does not: etcd loads its certificate and key again for every new TLS handshake. */
    public static final String NO_RESTART = "etcd reads its certificate at each new TLS handshake: no restart";

    /**
     * Whether the host's CA file will change: it differs from the workstation's CA, or there is no
     * CA on the workstation yet (one is made, and every certificate with it). Server and peer
     * certificates and keys alone do not restart etcd: it loads them again at each new handshake
     * (server and client side), so a renewal is picked up by the next connection.
     */
    private boolean caChanges(java.util.Map<String, io.etcdwright.engine.facts.FileState> files) {
        if (!java.nio.file.Files.exists(pki.caCertFile())) {
            return true;
        }
        String path = HostCertificates.certPath(HostCertificates.CA);
        var have = files.getOrDefault(path, io.etcdwright.engine.facts.FileState.missing(path));
        return !have.exists() || !have.sha256().equals(ClusterPki.sha256(pki.caCertFile()));
    }
}
