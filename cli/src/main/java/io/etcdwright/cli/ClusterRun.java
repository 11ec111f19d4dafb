package io.etcdwright.cli;

import io.etcdwright.engine.facts.FactGatherer;
import io.etcdwright.engine.facts.HostReport;
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
import io.etcdwright.modules.pki.ClusterPki;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One command's work on one cluster: the validated input, the SSH connections (one per host,
 * reused by every step), and the facts. Closing it closes the connections.
 */
final class ClusterRun implements AutoCloseable {
    final DesiredState desired;
    final EtcdLayout layout;
    final EtcdProbes probes;
    /** The members' hosts: where facts are gathered. */
    final Map<String, SshTarget> targets;
    /**
     * Every inventory host: where steps may run. A removed member's host is no member any more,
     * but its etcd is stopped and disabled there after the removal. Connected only when a step
     * runs there, so hosts no step names are never contacted.
     */
    final Map<String, SshTarget> stepTargets;
    final SshConnections connections;
    final int forks;

    private ClusterRun(DesiredState desired, ConnectionOptions options) {
        this.desired = desired;
        this.layout = Layouts.of(desired);
        this.probes = EtcdProbes.of(layout);
        this.targets = Hosts.targets(desired.members().stream().map(Member::host).toList());
        this.stepTargets = Hosts.targets(List.copyOf(desired.inventory().hosts().values()));
        this.forks = options.forks;
        this.connections = Hosts.connect(desired.inventory(), options);
    }

    /** Validates first: on invalid input this throws before any connection is opened. */
    static ClusterRun open(InputOptions input, ConnectionOptions options) {
        DesiredState desired = DesiredStateLoader.load(input.inventory, input.spec);
        return new ClusterRun(desired, options);
    }

    /** Facts of every member; unreachable hosts are listed, not thrown, so all are reported at once. */
    Facts gather() {
        return gather(connections, forks, List.copyOf(targets.values()), probes);
    }

    /**
     * The one way facts are gathered (plan, apply, facts): every probe on every host in one
     * round trip a host, then the cluster's own view derived from what the members answered.
     */
    static Facts gather(SshConnections connections, int forks, List<SshTarget> targets, EtcdProbes probes) {
        List<HostReport> reports = new FactGatherer(connections, forks).gather(targets, probes.all());
        Map<String, String> addresses = new LinkedHashMap<>();
        targets.forEach(t -> addresses.put(t.name(), t.address()));
        return Facts.of(reports, probes, addresses);
    }

    /**
     * What one gathering saw.
     *
     * @param reports     every host's report, raw probe outputs included (what a facts file records)
     * @param addresses   each host's address, by host name
     * @param byHost      the reachable hosts' facts, typed
     * @param unreachable one line per host that could not be reached
     * @param cluster     the cluster's own view from the members' answers ({@link ClusterFacts});
     *                    empty when no member answered
     */
    record Facts(List<HostReport> reports, Map<String, String> addresses, Map<String, EtcdHostFacts> byHost,
                 List<String> unreachable, Optional<ClusterStatus> cluster) {

        /** Types the reports with the probes that produced them; pure, so recorded reports give the same facts. */
        static Facts of(List<HostReport> reports, EtcdProbes probes, Map<String, String> addresses) {
            Map<String, EtcdHostFacts> facts = new LinkedHashMap<>();
            List<String> unreachable = new ArrayList<>();
            List<ClusterFacts.HostAnswer> answers = new ArrayList<>();
            for (HostReport r : reports) {
                String address = addresses.getOrDefault(r.host(), "");
                if (r instanceof HostReport.Reachable ok) {
                    EtcdHostFacts typed = EtcdHostFacts.from(ok.facts(), probes);
                    facts.put(ok.host(), typed);
                    answers.add(ClusterFacts.HostAnswer.reachable(address, typed));
                } else if (r instanceof HostReport.Unreachable down) {
                    unreachable.add(down.host() + ": " + down.message());
                    answers.add(ClusterFacts.HostAnswer.unreachable(down.host(), address, down.message()));
                }
            }
            return new Facts(List.copyOf(reports), java.util.Collections.unmodifiableMap(new LinkedHashMap<>(addresses)), facts, unreachable, ClusterFacts.derive(answers));
        }

        void requireAllReachable() {
            if (!unreachable.isEmpty()) {
                throw new IllegalStateException("cannot plan: " + unreachable.size() + " host(s) unreachable, and a plan made "
                        + "without their facts could be wrong:\n  " + String.join("\n  ", unreachable));
            }
        }
    }

    ClusterPki pki() {
        return Pkis.of(desired);
    }


    @Override
    public void close() {
        connections.close();
    }
}
