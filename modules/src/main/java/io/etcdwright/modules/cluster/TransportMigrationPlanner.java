package io.etcdwright.modules.cluster;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.backup.schedule.ScheduleLayout;
import io.etcdwright.modules.backup.schedule.ScheduleTarget;
import io.etcdwright.modules.config.ConfigFileModule;
import io.etcdwright.modules.config.EtcdConfigFile;
import io.etcdwright.modules.config.MemberTransport;
import io.etcdwright.modules.config.MemberTransport.Clients;
import io.etcdwright.modules.config.MemberTransport.Peers;
import io.etcdwright.modules.membership.MemberFacts;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.membership.MembershipChanges;
import io.etcdwright.modules.pki.CertificatesModule;
import io.etcdwright.modules.pki.PkiSteps;
import io.etcdwright.modules.service.ServiceSteps;
import io.etcdwright.modules.upgrade.VersionChange;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A running cluster moved from plain HTTP to mutual TLS (clients, peers or both) without losing
 * quorum or a write. Each member's config file says which stage it is in ({@link MemberTransport}),
 * so the plan starts from wherever an earlier apply stopped. Up to three rounds, each a rolling
 * restart, one member at a time, every other member healthy before and a write committed through
 * the member after:
 * <ol>
 * <li><b>serve both</b>: clients http:// and https:// on the same port (etcd multiplexes the two
 *     schemes on one listener), both advertised; the peer certificate configured while peers still
 *     listen on http:// (a member dials peers already on https:// with it);</li>
 * <li><b>advertise TLS</b>: each member's peer URL set to https:// in the member list ({@code member
 *     update}) and the member restarted to serve its peer port over TLS (etcd opens one listener per
 *     peer URL, so a port serves one scheme: the URL changes first, then the listener, the member
 *     unreachable for its peers only in between, as in any restart); clients: only https://
 *     advertised, http:// still served;</li>
 * <li><b>drop plain HTTP</b>: clients served https:// only, client certificates required.</li>
 * </ol>
 * Certificates land first (members and workstation); the workstation reaches the members over the
 * scheme every one of them serves in that round. Moving back to plain HTTP is refused.
 */
public final class TransportMigrationPlanner {
    private static final RemoteFile CONFIG = RemoteFile.rootOwned(EtcdLayout.CONFIG_FILE, "0644");

    /** One round: the stage every member is brought to, one at a time, and what it is called in the plan. */
    record Round(int number, String name, MemberTransport stage) {
    }

    private final ConvergePlanner.Inputs in;
    private final MemberTransport target;
    private final Map<String, MemberTransport> stages;
    private final List<Step> steps = new ArrayList<>();

    private TransportMigrationPlanner(ConvergePlanner.Inputs in, MemberTransport target, Map<String, MemberTransport> stages) {
        this.in = in;
        this.target = target;
        this.stages = stages;
    }

    /**
     * The plan of a move to TLS when the members' configs are behind the spec's transport (or a
     * refusal when they are ahead: a move back to plain HTTP); empty when there is nothing to move
     * (a new cluster is made with the spec's transport by converge) or facts are missing (converge
     * refuses the unreachable hosts).
     */
    static Optional<Plan> plan(ConvergePlanner.Inputs in, VersionChange version) {
        MemberTransport target = MemberTransport.of(in.desired().spec().tls().transport());
        Map<String, MemberTransport> stages = new LinkedHashMap<>();
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (f == null) {
                return Optional.empty();
            }
            f.file(EtcdLayout.CONFIG_FILE).content().flatMap(MemberTransport::readFrom)
                    .ifPresent(stage -> stages.put(m.name(), stage));
        }
        if (stages.values().stream().allMatch(target::equals)) {
            return Optional.empty();
        }
        return Optional.of(new TransportMigrationPlanner(in, target, stages).plan(version));
    }

    private Plan plan(VersionChange version) {
        String name = in.desired().spec().name();
        List<String> warnings = new ArrayList<>();
        in.desired().warnings().forEach(w -> warnings.add(w.toString()));
        List<Refusal> refusals = refusals(version);
        if (!refusals.isEmpty()) {
            return Plan.refused(name, refusals, warnings);
        }
        List<Step> pki = workstationPki();
        Map<String, List<Step>> certificates = memberCertificates(pki);
        List<Round> rounds = rounds();
        List<Step> previous = pki;
        for (Round round : rounds) {
            previous = round(round, rounds, previous, certificates);
        }
        scheduledBackups(previous);
        scheduledDefrag(previous);
        if (target.clients() == Clients.TLS && stages.values().stream().anyMatch(s -> s.clients() != Clients.TLS)) {
            warnings.add("clients still on http:// stop being served in the last round: move them to https:// with the"
                    + " cluster's CA and a client certificate first ('etcdwright kube-apiserver-flags', 'etcdwright client-env')");
        }
        // The spec asks for another transport: a change, its host files included.
        return new Plan(name, steps, List.of(), warnings).atLeast(SafetyClass.CHANGE);
    }

    /** Every reason the move cannot start now, at once. */
    private List<Refusal> refusals(VersionChange version) {
        List<Refusal> refusals = new ArrayList<>();
        String subject = "cluster " + in.desired().spec().name();
        stages.forEach((member, stage) -> {
            if (stage.clients().compareTo(target.clients()) > 0 || stage.peers().compareTo(target.peers()) > 0) {
                refusals.add(new Refusal("transport-downgrade", "member " + member,
                        "serves " + stage.describe() + " but the spec asks for " + target.describe() + ": moving a cluster"
                                + " from TLS back to plain HTTP would expose every key and let any host on the network"
                                + " pose as a client or a member; etcdwright does not plan it",
                        "set tls.transport back to mutual-tls (an interrupted move to TLS is finished by the next apply)"));
            }
        });
        if (!refusals.isEmpty()) {
            return refusals;
        }
        refusals.addAll(TrustOnlyChecks.of(in).refusals());
        for (Member m : in.desired().members()) {
            EtcdHostFacts f = in.facts().get(m.host().name());
            if (!stages.containsKey(m.name()) || !f.service().running()) {
                refusals.add(new Refusal("transport-member-down", "member " + m.name(),
                        "is not running (or has no config): a move to TLS restarts every member in turn and needs every"
                                + " other one running each time",
                        "bring the cluster back with the transport it has (tls.transport as it was), then set mutual-tls"
                                + " and apply again"));
            }
        }
        Optional<List<MemberStatus>> listed = in.cluster().map(c -> c.members());
        if (listed.isEmpty() || !in.cluster().get().quorum()) {
            refusals.add(new Refusal("transport-no-quorum", subject, "no member answered with a quorum: the move needs a"
                    + " healthy cluster", "look at 'etcdwright status' and the members' journals, then apply again"));
        } else {
            List<String> names = listed.get().stream().map(MemberStatus::name).sorted().toList();
            List<String> wanted = in.desired().members().stream().map(Member::name).sorted().toList();
            if (!names.equals(wanted) || listed.get().stream().anyMatch(MemberStatus::learner)) {
                refusals.add(new Refusal("transport-membership", subject, "the cluster's members " + names
                        + (listed.get().stream().anyMatch(MemberStatus::learner) ? " (a learner among them)" : "")
                        + " are not the spec's " + wanted + ": a move to TLS changes peer URLs, which a membership change"
                        + " in flight also relies on",
                        "finish the membership change first with the transport the cluster has (tls.transport as it was),"
                                + " then set mutual-tls and apply again"));
            }
        }
        if (!(version instanceof VersionChange.Unchanged)) {
            refusals.add(new Refusal("transport-with-version-change", subject, "a version change and a move to TLS at"
                    + " once: each restarts every member, and one at a time is what can be checked",
                    "keep etcd.version as the cluster runs it until the move is done, or finish the version change first"
                            + " with the transport the cluster has"));
        }
        return refusals;
    }

    /** The workstation's CA and client certificates: the admin client speaks TLS from the second round on. */
    private List<Step> workstationPki() {
        List<Step> pki = PkiSteps.workstation(in.pki());
        steps.addAll(pki);
        return pki;
    }

    /** Each member's certificates (server, peer, healthcheck client, CA) in place before its first restart. */
    private Map<String, List<Step>> memberCertificates(List<Step> pki) {
        Map<String, List<Step>> byHost = new LinkedHashMap<>();
        CertificatesModule certificates = new CertificatesModule(in.pki(), pki, in.desired());
        for (Member m : in.desired().members()) {
            Optional<MemberModule.Change> change = certificates.plan(context(m, in.layout()));
            List<Step> done = new ArrayList<>();
            change.ifPresent(c -> {
                Step step = c.step().does(c.operation());
                steps.add(step);
                done.add(step);
            });
            byHost.put(m.host().name(), done);
        }
        return byHost;
    }

    /**
     * The scheduled backups' config names the member's client URL: once the last round dropped
     * http://, it gets the https:// one (and the script the TLS files it already has), so backups
     * keep running between this apply and the next. Only where a schedule is installed already: a
     * new one (or one the spec cannot have) is left to converge, which checks the hosts' tools first.
     */
    private void scheduledBackups(List<Step> after) {
        ScheduleTarget.Resolved schedule = ScheduleTarget.resolve(in.desired());
        if (schedule.target().isEmpty() || !schedule.refusals().isEmpty()) {
            return;
        }
        BackupScheduleModule module = new BackupScheduleModule(schedule.target());
        for (Member m : in.desired().members()) {
            if (in.facts().get(m.host().name()).file(ScheduleLayout.CONF).exists()) {
                module.plan(context(m, in.layout())).ifPresent(c -> steps.add(c.step().after(after).does(c.operation())));
            }
        }
    }

    /** The scheduled defragmentation's config names the members' client URLs too: the same, for the same reason. */
    private void scheduledDefrag(List<Step> after) {
        if (in.desired().spec().maintenance().defragSchedule().isEmpty()) {
            return;
        }
        var module = new io.etcdwright.modules.maintenance.DefragScheduleModule(in.desired().spec(), in.desired().members());
        for (Member m : in.desired().members()) {
            if (in.facts().get(m.host().name()).file(io.etcdwright.modules.maintenance.DefragScheduleJob.CONF).exists()) {
                module.plan(context(m, in.layout())).ifPresent(c -> steps.add(c.step().after(after).does(c.operation())));
            }
        }
    }

    /**
     * The rounds from where the members are to the spec's transport: only sides that move get
     * their intermediate stages; a round that would change nothing is left out.
     */
    List<Round> rounds() {
        boolean clientsMove = stages.values().stream().anyMatch(s -> s.clients().compareTo(target.clients()) < 0);
        boolean peersMove = stages.values().stream().anyMatch(s -> s.peers().compareTo(target.peers()) < 0);
        List<MemberTransport> candidates = List.of(
                new MemberTransport(clientsMove ? Clients.BOTH : target.clients(), peersMove ? Peers.PLAINTEXT_WITH_KEYS : target.peers()),
                new MemberTransport(clientsMove ? Clients.BOTH_ADVERTISING_TLS : target.clients(), target.peers()),
                target);
        List<String> names = List.of("serve both", "advertise TLS", "drop plain HTTP");
        List<Round> rounds = new ArrayList<>();
        MemberTransport before = null;
        for (int i = 0; i < candidates.size(); i++) {
            if (!candidates.get(i).equals(before)) {
                rounds.add(new Round(rounds.size() + 1, names.get(i), candidates.get(i)));
            }
            before = candidates.get(i);
        }
        return rounds;
    }

    /** One round: the members not done with it, followers first, one at a time. */
    private List<Step> round(Round round, List<Round> rounds, List<Step> after, Map<String, List<Step>> certificates) {
        // The scheme every member serves both before and after this round's restarts.
        EtcdLayout reach = in.layout().withTransport(round.stage().clients() == Clients.BOTH
                ? new MemberTransport(Clients.PLAINTEXT, round.stage().peers()) : round.stage());
        ConvergePlanner.Context context = new ConvergePlanner.Context(in.desired().members(), reach,
                Endpoints.healthAccess(in.pki()), Endpoints.clientUrls(in.desired().members(), reach), in.timeouts());
        List<Member> pending = in.desired().members().stream().filter(m -> !done(m, round, rounds)).toList();
        List<Member> ordered = RollingRestart.order(pending, m -> in.facts().get(m.host().name()).member().status()
                .map(MemberFacts.LocalStatus::isLeader).orElse(false));
        List<Step> previous = after;
        List<String> restartedBefore = new ArrayList<>();
        for (Member m : ordered) {
            String host = m.host().name();
            MemberTransport now = stages.get(m.name());
            String config = ConfigFileModule.desired(context(m, in.layout().withTransport(round.stage())));
            // The first round with peers on TLS moves the peer URL; later ones find it moved (and check again).
            boolean updatesPeerUrl = round.stage().peers() == Peers.TLS && !listedPeerUrlIsHttps(m)
                    && rounds.stream().noneMatch(r -> r.number() < round.number() && r.stage().peers() == Peers.TLS);
            List<String> others = in.desired().members().stream().filter(o -> o != m)
                    .map(o -> Endpoints.clientUrl(o, reach)).toList();
            List<String> before = List.copyOf(restartedBefore);
            Step step = Step.on(host, "transport", "transport-round-" + round.number()).safety(SafetyClass.CHANGE).kind(ChangeKind.ACTION)
                    .summary("round " + round.number() + "/" + rounds.size() + " (" + round.name() + "): "
                            + (updatesPeerUrl ? "member update peer URL to https, " : "") + "restart etcd serving "
                            + round.stage().describe())
                    .reason("tls.transport: " + target.describe() + "; " + m.name() + " serves " + now.describe()
                            + (pendingRestart(m) ? " (config written, restart pending)" : ""))
                    .observed(now.describe() + " " + in.facts().get(host).file(EtcdLayout.CONFIG_FILE).sha256())
                    .after(previous).after(certificates.get(host))
                    .requires(new ClusterConditions.OthersHealthy(context.access(), m.name(), others, in.desired().members().size()))
                    .readyWhen(new ClusterConditions.AllHealthy(context.access(), context.clientUrls(), in.timeouts().ready()))
                    .readyWhen(new ClusterConditions.WritesCommitThrough(context.access(), m.name(), Endpoints.clientUrl(m, reach),
                            in.timeouts().ready()))
                    .does(ctx -> move(ctx, context, m, config, round, before));
            steps.add(step);
            previous = List.of(step);
            restartedBefore.add(m.name());
        }
        return previous;
    }

    /**
     * One member's move: the leader hands over first (decided now), its peer URL set to https:// in
     * the member list when this round serves peers over TLS, the config written, the member restarted.
     * Each part is a no-op when an interrupted apply already did it.
     */
    private Outcome move(StepContext ctx, ConvergePlanner.Context context, Member m, String config, Round round,
                         List<String> restartedBefore) throws InterruptedException {
        if (in.desired().members().size() > 1) {
            RollingRestart.handOffIfLeading(ctx, context, m.name(), restartedBefore);
        }
        if (round.stage().peers() == Peers.TLS) {
            String httpsPeer = new EtcdConfigFile.Peer(m.name(), m.address()).peerUrl(in.layout().withTransport(round.stage()));
            try (MembershipChanges etcd = MembershipChanges.connect(context.clientUrls(), context.access().caCert(),
                    context.access().clientCert(), context.access().clientKey(), Duration.ofSeconds(5))) {
                String id = etcd.members().stream().filter(x -> x.name().equals(m.name())).findFirst()
                        .orElseThrow(() -> new IllegalStateException(m.name() + " is not in the member list")).id();
                if (etcd.updatePeerUrls(id, List.of(httpsPeer))) {
                    ctx.note("peer URL of " + m.name() + " set to " + httpsPeer + " (member update)");
                }
            }
        }
        ctx.session().sync(config.getBytes(StandardCharsets.UTF_8), CONFIG);
        ServiceSteps.restart(ctx, in.layout().dataDir(), in.timeouts().restart());
        return Outcome.CHANGED;
    }

    /**
     * Whether a member has finished a round: its config is at that round's stage or a later one, and
     * for its own round (the last it reached) also running that config and, with peers on TLS, listed
     * with an https:// peer URL. A config written but not restarted into is done with the rounds
     * before, not with its own.
     */
    private boolean done(Member m, Round round, List<Round> rounds) {
        MemberTransport stage = stages.get(m.name());
        int reached = -1;
        for (Round r : rounds) {
            if (stage.atLeast(r.stage())) {
                reached = r.number();
            }
        }
        if (round.number() < reached) {
            return true;
        }
        return round.number() == reached && !pendingRestart(m)
                && (round.stage().peers() != Peers.TLS || listedPeerUrlIsHttps(m));
    }

    private boolean pendingRestart(Member m) {
        EtcdHostFacts f = in.facts().get(m.host().name());
        return f.service().running() && !RestartPending.causes(f).isEmpty();
    }

    private boolean listedPeerUrlIsHttps(Member m) {
        return in.cluster().flatMap(c -> c.members().stream().filter(s -> s.name().equals(m.name())).findFirst())
                .map(s -> !s.peerUrls().isEmpty() && s.peerUrls().stream().allMatch(u -> u.startsWith("https://")))
                .orElse(false);
    }

    private MemberContext context(Member m, EtcdLayout layout) {
        String token = in.facts().get(m.host().name()).file(EtcdLayout.CONFIG_FILE).content()
                .flatMap(EtcdConfigFile::tokenIn).orElse(in.desired().spec().name());
        List<EtcdConfigFile.Peer> everyone = in.desired().members().stream()
                .map(x -> new EtcdConfigFile.Peer(x.name(), x.address())).toList();
        return new MemberContext(m, in.facts().get(m.host().name()), in.desired().spec(), layout,
                new MemberContext.Bootstrap(everyone, false, token));
    }
}
