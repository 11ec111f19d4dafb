package io.etcdwright.modules.service;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.modules.FileSafety;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.Optional;

/** etcd's systemd unit: written, loaded by systemd, enabled at boot. */
public final class UnitModule implements MemberModule {
    @Override
    public Optional<Change> plan(MemberContext member) {
        String want = EtcdUnitFile.render(member.spec().name(), member.spec().etcd().version());
        FileState have = member.facts().file(EtcdLayout.UNIT_FILE);
        ServiceFacts service = member.facts().service();
        boolean differs = !have.hasContent(want) || !have.hasAttributes("644", "root", "root");
        boolean notLoaded = service.needsDaemonReload();
        if (!differs && !notLoaded && service.enabled()) {
            return Optional.empty();
        }
        // Not loaded or not enabled: systemd's state, which no spec edit changes; a file as FileSafety judges it.
        SafetyClass safety = differs ? FileSafety.ofRewrite(member, have, have.hasContent(want)) : SafetyClass.ROUTINE;
        Step.Builder step = Step.on(member.host(), "service", "unit").kind(have.exists() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .safety(safety)
                .summary("systemd unit " + EtcdLayout.UNIT)
                .reason(!have.exists() ? "missing" : differs ? "content differs"
                        : notLoaded ? "changed on disk but not loaded by systemd" : "not enabled")
                .observed(have.sha256() + " " + have.mode() + " loaded=" + !notLoaded + " enabled=" + service.enabled())
                .diff(differs ? new FileDiff(EtcdLayout.UNIT_FILE, have.content().orElse(""), want) : null);
        // A member that runs the spec's version already was started by this unit (it names the versioned
        // binary and nothing else varies): writing it back (an interrupted change moved it on) restarts nothing.
        boolean runsIt = member.runsSpecVersion() && have.content().flatMap(EtcdUnitFile::renderedVersion)
                .isPresent();
        return Optional.of(new Change(step, ctx -> ServiceSteps.writeUnit(ctx.session(), want),
                (differs || notLoaded) && !runsIt ? Optional.of("unit changed") : Optional.empty()));
    }
}
