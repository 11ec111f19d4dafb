package io.etcdwright.modules.config;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.List;
import java.util.Optional;

/** The etcd user and its directories, with the modes and owners etcd needs. */
public final class HostSetupModule implements MemberModule {
    @Override
    public Optional<Change> plan(MemberContext member) {
        HostSetupFacts have = member.facts().setup();
        EtcdLayout layout = member.layout();
        List<String> differences = HostSetup.differences(have, layout);
        if (differences.isEmpty()) {
            return Optional.empty();
        }
        String host = member.host();
        // A member's user or directories changed on its host (it holds data): put back. A host without
        // member data is becoming a member (a create, a join): its planner raises the class further.
        Step.Builder step = Step.on(host, "config", "host-setup").kind(have.userExists() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .safety(member.facts().member().hasMemberData() ? io.etcdwright.engine.plan.SafetyClass.ROUTINE : io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("etcd user and directories").reason(String.join("; ", differences)).observed(have.toString());
        return Optional.of(new Change(step, ctx -> {
            String said = ctx.session().run(HostSetup.command(layout)).orThrow(host).stdout().strip();
            return said.equals("changed") ? Outcome.CHANGED : Outcome.OK;
        }, Optional.empty()));
    }
}
