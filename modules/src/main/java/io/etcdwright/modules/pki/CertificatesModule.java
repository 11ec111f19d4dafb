package io.etcdwright.modules.pki;

import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.List;
import java.util.Optional;

/**
 * A member's certificates and keys on its host: issued on the workstation when missing, wrong or
 * near expiry, then copied where the host's copy differs. Needs the CA and client certificates
 * first, so its step waits for the workstation's PKI steps.
 */
public final class CertificatesModule implements MemberModule {
    private final ClusterPki pki;
    private final List<Step> workstationSteps;

    public CertificatesModule(ClusterPki pki, List<Step> workstationSteps) {
        this.pki = pki;
        this.workstationSteps = List.copyOf(workstationSteps);
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        ClusterPki.MemberIdentity identity = new ClusterPki.MemberIdentity(member.member().name(), member.host(),
                member.member().address());
        var files = member.facts().files();
        return PkiSteps.memberStep(member.host(), pki, identity, files)
                .map(step -> new Change(step.after(workstationSteps),
                        ctx -> PkiSteps.apply(ctx.session(), pki, identity, files), Optional.of("certificates changed")));
    }
}
