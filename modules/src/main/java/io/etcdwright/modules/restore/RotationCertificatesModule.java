package io.etcdwright.modules.restore;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.pki.PkiSteps;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * A restored member's certificates while a CA rotation is under way: its ca.crt becomes the bundle
 * of the old and the new CA, and its certificates are the workstation's as they are (whichever CA
 * issued them; only a missing pair is issued). Every member restarts in a restore anyway, so each
 * comes back trusting clients of both CAs: kube-apiservers on the old or the new CA keep working,
 * and the next apply carries the rotation on from where the members then stand (phase 2 or 3).
 */
final class RotationCertificatesModule implements MemberModule {
    private final ClusterPki pki;
    private final DesiredState desired;
    private final Path bundle;
    private final List<Step> workstation;

    RotationCertificatesModule(ClusterPki pki, DesiredState desired, Path bundle, List<Step> workstation) {
        this.pki = pki;
        this.desired = desired;
        this.bundle = bundle;
        this.workstation = List.copyOf(workstation);
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        ClusterPki.MemberIdentity identity = new ClusterPki.MemberIdentity(member.member().name(), member.host(),
                member.member().address());
        Set<String> clients = HostCertificates.clientRoles(desired, member.host());
        var files = member.facts().files();
        String host = member.host();
        // Only a restore plans it (never unattended); the restore raises every step to never as well.
        Step.Builder step = Step.on(host, "pki", "certificates").kind(ChangeKind.UPDATE).safety(io.etcdwright.engine.plan.SafetyClass.NEVER)
                .summary("certificates for " + member.member().name() + " as the CA rotation has them: "
                        + HostCertificates.certPath(HostCertificates.CA) + " from " + bundle.getFileName())
                .reason("a CA rotation is under way: the restored member trusts the old and the new CA and keeps the"
                        + " certificates the workstation holds for it, so clients of either CA keep working; the next apply"
                        + " carries the rotation on")
                .observed(files.entrySet().stream().filter(e -> e.getKey().startsWith(EtcdLayout.PKI_DIR))
                        .map(e -> e.getKey() + "=" + e.getValue().sha256()).toList().toString())
                .after(workstation);
        return Optional.of(new Change(step, ctx -> PkiSteps.applyAsHeld(ctx.session(), pki, identity, clients, files, bundle),
                Optional.empty()));
    }
}
