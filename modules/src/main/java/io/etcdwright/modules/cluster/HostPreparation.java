package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.config.ConfigFileModule;
import io.etcdwright.modules.config.HostSetupModule;
import io.etcdwright.modules.install.InstallModule;
import io.etcdwright.modules.install.ReleaseCache;
import io.etcdwright.modules.pki.CertificatesModule;
import io.etcdwright.modules.pki.ClientKeyRemovalModule;
import io.etcdwright.modules.pki.ClusterPki;
import io.etcdwright.modules.service.UnitModule;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Each member's host brought to the spec by the per-host modules in order (host setup, install,
 * certificates, config, unit), each step after the one before, hosts side by side. Shared by the
 * planners that need hosts ready before etcd (re)starts: converge and restore. Starting etcd is
 * never part of it: when a member may start is each planner's own decision.
 */
public final class HostPreparation {
    /**
     * One host's preparation: the steps starting or restarting it waits for (the end of its chain
     * and what ran beside it), and why a running etcd must restart to pick the changes up.
     */
    public record Prepared(List<Step> done, List<String> restartCauses) {
        public Prepared {
            done = List.copyOf(done);
            restartCauses = List.copyOf(restartCauses);
        }
    }

    private HostPreparation() {
    }

    /**
     * Plans every member host's preparation, appending its steps to {@code steps}.
     *
     * @param pkiSteps  the workstation's CA and client certificate steps, which certificates wait for
     * @param bootstrap how each member starts (its config's initial cluster, state and token)
     * @param after     modules that come after etcd's own (the backup schedule), in order
     * @return each host's {@link Prepared}, by host name, in the spec's member order
     */
    public static Map<String, Prepared> plan(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                                             ClusterPki pki, ReleaseCache releases, List<Step> pkiSteps,
                                             Function<Member, MemberContext.Bootstrap> bootstrap, List<MemberModule> after,
                                             List<Step> steps) {
        return plan(desired, layout, facts, pki, releases, pkiSteps, List.of(), bootstrap, after, steps);
    }

    /**
     * As above, every host step also waiting for {@code gate}: checks that must pass before any
     * host is touched (a version change's preflight).
     */
    public static Map<String, Prepared> plan(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                                             ClusterPki pki, ReleaseCache releases, List<Step> pkiSteps, List<Step> gate,
                                             Function<Member, MemberContext.Bootstrap> bootstrap, List<MemberModule> after,
                                             List<Step> steps) {
        return plan(desired, layout, facts, pki, releases, pkiSteps, gate, bootstrap, after, steps, false);
    }

    /**
     * As above; with {@code caRotating} the certificates and the CA file are left to the rotation's
     * own phases ({@link CaRotationPlanner}), and a CA file newer than etcd is not a restart cause here.
     */
    public static Map<String, Prepared> plan(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                                      ClusterPki pki, ReleaseCache releases, List<Step> pkiSteps, List<Step> gate,
                                      Function<Member, MemberContext.Bootstrap> bootstrap, List<MemberModule> after,
                                      List<Step> steps, boolean caRotating) {
        List<MemberModule> modules = new ArrayList<>(List.of(new HostSetupModule(), new InstallModule(releases)));
        if (!caRotating) {
            modules.add(new CertificatesModule(pki, pkiSteps, desired));
        }
        modules.addAll(List.of(new ConfigFileModule(), new UnitModule()));
        modules.addAll(after);
        // Last: client keys the spec does not give this host go once what used them (the backup script) has moved on.
        modules.add(new ClientKeyRemovalModule(desired));
        Map<String, Prepared> prepared = new LinkedHashMap<>();
        for (Member m : desired.members()) {
            EtcdHostFacts f = facts.get(m.host().name());
            MemberContext member = new MemberContext(m, f, desired.spec(), layout, bootstrap.apply(m));
            prepared.put(m.host().name(), host(member, modules, gate, steps, caRotating));
        }
        return prepared;
    }

    /**
     * One host brought to the spec by {@code modules}, each step after the one before (a step
     * placed beside the chain, the install, after none), all after {@code gate}; appended to
     * {@code steps}. For a planner that prepares hosts at its own moments: an online downgrade
     * writes each member's files only just before that member's swap.
     */
    public static Prepared host(MemberContext member, List<MemberModule> modules, List<Step> gate, List<Step> steps,
                                boolean caRotating) {
        Optional<Step> last = Optional.empty();
        List<Step> beside = new ArrayList<>();
        List<String> causes = new ArrayList<>();
        for (MemberModule module : modules) {
            Optional<MemberModule.Change> change = module.plan(member);
            if (change.isPresent()) {
                Step.Builder builder = change.get().step();
                last.ifPresent(builder::after);
                builder.after(gate);
                Step step = builder.does(change.get().operation());
                steps.add(step);
                if (change.get().placement() == MemberModule.Placement.BESIDE_CHAIN) {
                    beside.add(step);
                } else {
                    last = Optional.of(step);
                }
                change.get().restartCause().ifPresent(causes::add);
            }
        }
        if (causes.isEmpty() && member.facts().service().running()) {
            causes.addAll(RestartPending.causes(member.facts(), !caRotating));
        }
        List<Step> done = new ArrayList<>(beside);
        last.ifPresent(done::add);
        return new Prepared(done, causes);
    }
}
