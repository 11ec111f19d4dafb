package io.etcdwright.run;

import io.etcdwright.engine.facts.FactGatherer;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.inventory.InventoryHost;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshTarget;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.ClusterFacts;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.membership.ClusterStatus;
import io.etcdwright.modules.membership.MemberStatus;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClusterPki;

import io.etcdwright.engine.plan.Plan;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The run of one cluster, below the command line: the validated input, the SSH connections (one
 * per host, reused by every step), the facts, the plan, and (holding the cluster's lock, see
 * {@link #lock}) the planners of the changes and the apply. Every command that works on a cluster,
 * the fleet, a watch loop and a rollout go through it; it returns values and prints nothing (notes
 * for the operator go to the {@link RunContext}'s sink, the lock's to the caller's). Closing it
 * closes the connections.
 */
public final class ClusterRun implements AutoCloseable {
    private final DesiredState desired;
    private final EtcdLayout layout;
    private final EtcdProbes probes;
    /** The members' hosts: where facts are gathered. */
    private final Map<String, SshTarget> targets;
    /**
     * Every inventory host: where steps may run. A removed member's host is no member any more,
     * but its etcd is stopped and disabled there after the removal. Connected only when a step
     * runs there, so hosts no step names are never contacted.
     */
    private final Map<String, SshTarget> stepTargets;
    private final SshConnections connections;
    private final ConnectionSettings settings;

    private ClusterRun(DesiredState desired, ConnectionSettings options) {
        this.desired = desired;
        this.layout = Layouts.of(desired);
        this.probes = EtcdProbes.of(layout);
        this.targets = Hosts.targets(desired.members().stream().map(Member::host).toList());
        this.stepTargets = Hosts.targets(List.copyOf(desired.inventory().hosts().values()));
        this.settings = options;
        this.connections = Hosts.connect(desired.inventory(), options);
    }

    /** The run of a desired state already loaded (a cluster of a fleet). */
    public static ClusterRun of(DesiredState desired, ConnectionSettings options) {
        return new ClusterRun(desired, options);
    }

    /** Validates first: on invalid input this throws before any connection is opened. */
    public static ClusterRun open(Path inventory, Path spec, ConnectionSettings options) {
        DesiredState desired = DesiredStateLoader.load(inventory, spec);
        if (!ReadOnlyRunner.active(desired)) {
            // The shared state first: a store that cannot be read stops the command before any host is contacted.
            SharedStates.refreshForRead(desired);
        }
        return new ClusterRun(desired, options);
    }

    /** Facts of every member; unreachable hosts are listed, not thrown, so all are reported at once. */
    public Facts gather() {
        return gather(connections, settings.forks(), desired.members().stream().map(Member::host).toList(), desired.inventory().hosts(), probes);
    }

    /**
     * {@link #gather()}, and the client files of the hosts that hold clients without running a
     * member ({@link ClientHostFacts#hostsToAsk}): for the commands that change those (plan, apply,
     * destroy); the others leave those hosts alone.
     */
    public Facts gatherWithClientHosts() {
        return gather().withClientHosts(gatherClientHosts(connections, settings.forks(), ClientHostFacts.hostsToAsk(desired, pki())));
    }

    /** The client files of {@code hosts}, hosts that run no member: one round trip a host, that probe alone. */
    public static List<HostReport> gatherClientHosts(SshConnections connections, int forks, List<InventoryHost> hosts) {
        if (hosts.isEmpty()) {
            return List.of();
        }
        return new FactGatherer(connections, forks).gather(hosts.stream().map(Hosts::target).toList(),
                List.of(ClientHostFacts.PROBE));
    }

    /**
     * The one way facts are gathered (plan, apply, facts): every probe on every member host in
     * one round trip a host, then the cluster's own view derived from what the members answered.
     * A member of the cluster that the spec no longer lists (it is leaving) answers for itself
     * too when its host is in the inventory: asked in a second round, only when there is one.
     */
    public static Facts gather(SshConnections connections, int forks, List<InventoryHost> members,
                        Map<String, InventoryHost> inventory, EtcdProbes probes) {
        FactGatherer gatherer = new FactGatherer(connections, forks);
        List<HostReport> reports = new ArrayList<>(gatherer.gather(members.stream().map(Hosts::target).toList(), probes.all()));
        Set<String> memberHosts = new LinkedHashSet<>();
        members.forEach(h -> memberHosts.add(h.name()));
        Facts facts = Facts.of(reports, probes, inventory, memberHosts);
        if (facts.cluster().isEmpty() && facts.byHost().values().stream().anyMatch(f -> f.member().status().isPresent())) {
            // Members answered, but the leader (whose host asks for the whole cluster) was on no
            // host asked: ask every member for the cluster's view instead.
            probes = probes.askingEveryMember();
            reports = new ArrayList<>(gatherer.gather(members.stream().map(Hosts::target).toList(), probes.all()));
            facts = Facts.of(reports, probes, inventory, memberHosts);
        }
        List<InventoryHost> leaving = facts.leavingHosts(inventory);
        if (leaving.isEmpty()) {
            return facts;
        }
        reports.addAll(gatherer.gather(leaving.stream().map(Hosts::target).toList(), probes.all()));
        return Facts.of(reports, probes, inventory, memberHosts);
    }

    /**
     * What one gathering saw.
     *
     * @param reports     every host's report, raw probe outputs included (what a facts file records):
     *                    the member hosts', then those of leaving members
     * @param addresses   each host's SSH address, by host name
     * @param byHost      the member hosts' facts, typed (a leaving member's host is not among them)
     * @param unreachable why each member host that could not be reached was not, by host
     * @param cluster     the cluster's own view from the members' answers ({@link ClusterFacts});
     *                    empty when no member answered
     */
    public record Facts(List<HostReport> reports, Map<String, String> addresses, Map<String, EtcdHostFacts> byHost,
                 Map<String, String> unreachable, Optional<ClusterStatus> cluster, List<HostReport> clientReports) {

        public Facts {
            clientReports = List.copyOf(clientReports);
        }

        public Facts(List<HostReport> reports, Map<String, String> addresses, Map<String, EtcdHostFacts> byHost,
              Map<String, String> unreachable, Optional<ClusterStatus> cluster) {
            this(reports, addresses, byHost, unreachable, cluster, List.of());
        }

        /** The same, with the reports of the hosts asked for their client files only. */
        public Facts withClientHosts(List<HostReport> clients) {
            return new Facts(reports, addresses, byHost, unreachable, cluster, clients);
        }

        /** The client files of the hosts asked for them, typed. */
        public ClientHostFacts clientHosts() {
            Map<String, Map<String, io.etcdwright.engine.facts.FileState>> files = new LinkedHashMap<>();
            Map<String, String> down = new LinkedHashMap<>();
            for (HostReport r : clientReports) {
                if (r instanceof HostReport.Reachable ok) {
                    files.put(ok.host(), ok.facts().get(ClientHostFacts.PROBE));
                } else if (r instanceof HostReport.Unreachable u) {
                    down.put(u.host(), u.message());
                }
            }
            return new ClientHostFacts(files, down);
        }

        /**
         * Types the reports with the probes that produced them; pure, so recorded reports give the
         * same facts. {@code memberHosts} are the spec's; other reported hosts only speak for the
         * cluster's view.
         */
        public static Facts of(List<HostReport> reports, EtcdProbes probes, Map<String, InventoryHost> inventory,
                        Set<String> memberHosts) {
            Map<String, EtcdHostFacts> facts = new LinkedHashMap<>();
            Map<String, String> addresses = new LinkedHashMap<>();
            Map<String, String> unreachable = new LinkedHashMap<>();
            List<ClusterFacts.HostAnswer> answers = new ArrayList<>();
            for (HostReport r : reports) {
                InventoryHost host = inventory.get(r.host());
                String etcdAddress = host == null ? "" : host.etcdAddress();
                String memberName = host == null ? r.host() : host.memberName();
                addresses.put(r.host(), host == null ? "" : host.address());
                boolean member = memberHosts.contains(r.host());
                if (r instanceof HostReport.Reachable ok) {
                    EtcdHostFacts typed = EtcdHostFacts.from(ok.facts(), probes);
                    if (member) {
                        facts.put(ok.host(), typed);
                    }
                    answers.add(ClusterFacts.HostAnswer.reachable(etcdAddress, memberName, typed));
                } else if (r instanceof HostReport.Unreachable down) {
                    if (member) {
                        unreachable.put(down.host(), down.message());
                    }
                    answers.add(ClusterFacts.HostAnswer.unreachable(down.host(), etcdAddress, memberName, down.message()));
                }
            }
            return new Facts(List.copyOf(reports), Collections.unmodifiableMap(addresses), facts, unreachable,
                    ClusterFacts.derive(answers));
        }

        /**
         * Inventory hosts not yet asked where the cluster lists a member (by the address in its
         * peer URLs): members the spec no longer lists, whose own answer says how they are.
         */
        List<InventoryHost> leavingHosts(Map<String, InventoryHost> inventory) {
            if (cluster.isEmpty()) {
                return List.of();
            }
            Set<String> asked = new LinkedHashSet<>();
            reports.forEach(r -> asked.add(r.host()));
            List<InventoryHost> leaving = new ArrayList<>();
            for (MemberStatus m : cluster.get().members()) {
                Set<String> at = ClusterFacts.peerAddresses(m);
                inventory.values().stream()
                        .filter(h -> !asked.contains(h.name()) && at.contains(h.etcdAddress()))
                        .findFirst().ifPresent(h -> {
                            asked.add(h.name());
                            leaving.add(h);
                        });
            }
            return leaving;
        }
    }

    /** The cluster's PKI on this workstation ({@link Pkis#of}). */
    public ClusterPki pki() {
        return Pkis.of(desired);
    }

    public DesiredState desired() {
        return desired;
    }

    public EtcdLayout layout() {
        return layout;
    }

    /** The members' hosts, by name, in the spec's order: where facts are gathered, and what a recap lists. */
    public Set<String> memberHosts() {
        return targets.keySet();
    }

    /** The connection settings the run was opened with (also for a store it opens beside them). */
    public ConnectionSettings settings() {
        return settings;
    }

    /** Reads facts with {@code probes} alone on {@code hosts} (the run's hosts), one round trip a host. */
    public List<HostReport> ask(List<InventoryHost> hosts, List<? extends io.etcdwright.engine.facts.Probe<?>> probes) {
        return new FactGatherer(connections, settings.forks()).gather(hosts.stream().map(h -> stepTargets.get(h.name())).toList(),
                probes);
    }

    /**
     * The converge plan of the cluster as it is now, without the lock (what {@code plan} shows): facts
     * gathered, the workstation's PKI, release cache and pending stops read, the backup stores asked
     * only when the cluster lost quorum.
     */
    public Plan plan(PlanSettings settings) {
        return ConvergeRun.plan(this, settings, Optional.empty());
    }

    /** A plan and the facts it was made from: for a caller that judges the plan by them too (watch's quorum margin). */
    public record Planned(Plan plan, Facts facts) {
    }

    /** As {@link #plan}, with the facts it was made from. */
    public Planned planned(PlanSettings settings) {
        return planned(settings, Optional.empty());
    }

    /** As {@link #planned(PlanSettings)}, a new cluster bootstrapping with {@code newClusterToken} (a saved plan's). */
    public Planned planned(PlanSettings settings, Optional<String> newClusterToken) {
        return ConvergeRun.planned(this, settings, newClusterToken);
    }

    /**
     * The converge plan from facts recorded with {@code etcdwright facts -o json} ({@link FactsFile}):
     * the input read offline, no host contacted, no connection opened.
     */
    public static Plan planOffline(Path inventory, Path spec, Path facts, PlanSettings settings) {
        return ConvergeRun.planOffline(inventory, spec, facts, settings);
    }

    /** As {@link #planOffline(Path, Path, Path, PlanSettings)}, a new cluster bootstrapping with {@code newClusterToken} (a saved plan's). */
    public static Plan planOffline(Path inventory, Path spec, Path facts, PlanSettings settings, Optional<String> newClusterToken) {
        return ConvergeRun.planOffline(inventory, spec, facts, settings, newClusterToken);
    }

    /**
     * Takes the cluster's lock for {@code command} ({@link ClusterLocks}): what changes the cluster is
     * planned and applied through the returned run, while it is held.
     *
     * @param notes where the lock's lines for the operator go (who holds it, how it is held)
     */
    public LockedRun lock(String command, LockSettings lock, Consumer<String> notes) {
        return new LockedRun(this, ClusterLocks.take(desired, command, lock, notes));
    }

    Map<String, SshTarget> stepTargets() {
        return stepTargets;
    }

    SshConnections connections() {
        return connections;
    }


    @Override
    public void close() {
        connections.close();
    }
}
