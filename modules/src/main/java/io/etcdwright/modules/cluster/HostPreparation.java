package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.SafetyClass;
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
     * and what ran beside it), why a running etcd must restart to pick the changes up, and how
     * careful that restart is: the strictest class of the steps that gave it a cause.
     */
    public record Prepared(List<Step> done, List<String> restartCauses, SafetyClass restartSafety) {
        public Prepared {
            done = List.copyOf(done);
            restartCauses = List.copyOf(restartCauses);
        }

        /**
         * A restart for files written after etcd started that are as this spec renders them (an
         * apply stopped before its restart): the host holds the spec already, only the process is
         * behind, so bringing it level is {@code routine}.
         */
        public Prepared(List<Step> done, List<String> restartCauses) {
            this(done, restartCauses, SafetyClass.ROUTINE);
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
        return plan(desired, layout, facts, pki, releases, pkiSteps, gate, bootstrap, after, steps, caRotating, true);
    }

    /**
     * As above; without {@code release} the release, config and unit are left to a minor step planned
     * after ({@link #releaseModules}, {@link #minorStep}), which writes each member's files at its own
     * turn, and nothing written after etcd started is a restart cause here (the minor step judges it).
     */
    public static Map<String, Prepared> plan(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                                      ClusterPki pki, ReleaseCache releases, List<Step> pkiSteps, List<Step> gate,
                                      Function<Member, MemberContext.Bootstrap> bootstrap, List<MemberModule> after,
                                      List<Step> steps, boolean caRotating, boolean release) {
        return plan(desired, layout, facts, pki, releases, pkiSteps, gate, bootstrap, after, steps, caRotating, release,
                m -> Optional.empty());
    }

    /**
     * As above; {@code classOf} gives every preparation step of a member's host its class where the
     * planner knows better than the modules, which judge each file alone: a member that re-joins
     * after its data was lost has every file written for the member it becomes, as part of the
     * repair (its config differs because it now joins an existing cluster, not because anyone edited it).
     */
    public static Map<String, Prepared> plan(DesiredState desired, EtcdLayout layout, Map<String, EtcdHostFacts> facts,
                                      ClusterPki pki, ReleaseCache releases, List<Step> pkiSteps, List<Step> gate,
                                      Function<Member, MemberContext.Bootstrap> bootstrap, List<MemberModule> after,
                                      List<Step> steps, boolean caRotating, boolean release,
                                      Function<Member, Optional<SafetyClass>> classOf) {
        List<MemberModule> modules = new ArrayList<>(List.of(new HostSetupModule()));
        if (release) {
            modules.add(new InstallModule(releases));
        }
        if (!caRotating) {
            modules.add(new CertificatesModule(pki, pkiSteps, desired));
        }
        if (release) {
            modules.addAll(List.of(new ConfigFileModule(), new UnitModule()));
        }
        modules.addAll(after);
        // Last: client keys the spec does not give this host go once what used them (the backup script) has moved on.
        modules.add(new ClientKeyRemovalModule(desired));
        Map<String, Prepared> prepared = new LinkedHashMap<>();
        for (Member m : desired.members()) {
            EtcdHostFacts f = facts.get(m.host().name());
            MemberContext member = new MemberContext(m, f, desired.spec(), layout, bootstrap.apply(m));
            Prepared p = prepare(member, modules, gate, Optional.empty(), steps, "", classOf.apply(m));
            if (p.restartCauses().isEmpty() && f.service().running() && release) {
                p = new Prepared(p.done(), RestartPending.causes(member, !caRotating));
            }
            prepared.put(m.host().name(), p);
        }
        return prepared;
    }

    /**
     * One host brought to the spec by {@code modules}, each step after the one before (a step
     * placed beside the chain, the install, after none), all after {@code gate}; appended to
     * {@code steps}; a running member whose files were written after etcd started restarts. For a
     * planner that prepares hosts at its own moments: an online downgrade writes each member's files
     * only just before that member's swap.
     */
    public static Prepared host(MemberContext member, List<MemberModule> modules, List<Step> gate, List<Step> steps,
                                boolean caRotating) {
        Prepared p = prepare(member, modules, gate, Optional.empty(), steps);
        if (p.restartCauses().isEmpty() && member.facts().service().running()) {
            p = new Prepared(p.done(), RestartPending.causes(member.facts(), !caRotating));
        }
        return p;
    }

    /**
     * Part of the second preparation of a plan that carries a patch hop and then a minor step: one
     * member's host through {@code modules} (the new minor's release; then, just before its restart,
     * its config as that release spells the spec's settings and its unit), every step after
     * {@code gate} and tagged, so its ids differ from the hop's ({@code h1/install-minor}). The host
     * setup and certificates are the hop's; etcd restarts for the new minor anyway.
     *
     * @param desired    the desired state with the minor step's version
     * @param sayRelease whether each step's summary names the release its file is for (the unit and
     *                   config, which look alike in the hop and in the minor step)
     */
    public static Prepared minorStep(DesiredState desired, Member m, EtcdLayout layout, EtcdHostFacts f,
                                     List<MemberModule> modules, List<Step> gate, MemberContext.Bootstrap bootstrap,
                                     List<Step> steps, boolean sayRelease) {
        return prepare(new MemberContext(m, f, desired.spec(), layout, bootstrap), modules, gate, Optional.of(MINOR_TAG), steps,
                sayRelease ? " for etcd " + desired.spec().etcd().version() : "");
    }

    /** The modules that put a release on a host and make etcd run it: install, config, unit. */
    public static List<MemberModule> releaseModules(ReleaseCache releases) {
        return List.of(new InstallModule(releases), new ConfigFileModule(), new UnitModule());
    }

    /**
     * Why a running (or just started) member must restart to run {@code member}'s release: what the
     * release modules would change, or files written after etcd started ({@link RestartPending}).
     * Planned, not applied: nothing is added to a plan.
     */
    public static List<String> restartCauses(MemberContext member, ReleaseCache releases) {
        List<String> causes = new ArrayList<>();
        for (MemberModule module : releaseModules(releases)) {
            module.plan(member).flatMap(MemberModule.Change::restartCause).ifPresent(causes::add);
        }
        if (causes.isEmpty() && member.facts().service().running()) {
            causes.addAll(RestartPending.causes(member, true));
        }
        return causes;
    }

    /** The tag of the steps of a minor step that follows a hop in the same plan. */
    public static final String MINOR_TAG = "minor";

    /** One host through the modules in order, in a chain (or beside it), each step after {@code gate}. */
    private static Prepared prepare(MemberContext member, List<MemberModule> modules, List<Step> gate, Optional<String> tag,
                                    List<Step> steps) {
        return prepare(member, modules, gate, tag, steps, "");
    }

    /** As above, each step's summary followed by {@code also} (the release a second preparation is for). */
    private static Prepared prepare(MemberContext member, List<MemberModule> modules, List<Step> gate, Optional<String> tag,
                                    List<Step> steps, String also) {
        return prepare(member, modules, gate, tag, steps, also, Optional.empty());
    }

    /** As above, every step of the class {@code classOf} when the planner gives one. */
    private static Prepared prepare(MemberContext member, List<MemberModule> modules, List<Step> gate, Optional<String> tag,
                                    List<Step> steps, String also, Optional<SafetyClass> classOf) {
        Optional<Step> last = Optional.empty();
        List<Step> beside = new ArrayList<>();
        List<String> causes = new ArrayList<>();
        List<SafetyClass> causing = new ArrayList<>();
        for (MemberModule module : modules) {
            Optional<MemberModule.Change> change = module.plan(member);
            if (change.isPresent()) {
                Step.Builder builder = change.get().step();
                tag.ifPresent(builder::tagged);
                if (!also.isEmpty()) {
                    builder.summaryThen(also);
                }
                last.ifPresent(builder::after);
                builder.after(gate);
                classOf.ifPresent(builder::safety);
                Step step = builder.does(change.get().operation());
                steps.add(step);
                if (change.get().placement() == MemberModule.Placement.BESIDE_CHAIN) {
                    beside.add(step);
                } else {
                    last = Optional.of(step);
                }
                if (change.get().restartCause().isPresent()) {
                    causes.add(change.get().restartCause().get());
                    causing.add(step.safety());
                }
            }
        }
        List<Step> done = new ArrayList<>(beside);
        last.ifPresent(done::add);
        return new Prepared(done, causes, SafetyClass.strictest(causing, SafetyClass.ROUTINE));
    }
}
