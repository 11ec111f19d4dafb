package io.etcdwright.cli;

import io.etcdwright.engine.facts.FactGatherer;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.DesiredStateLoader;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshTarget;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.cluster.EtcdProbes;
import io.etcdwright.modules.pki.ClusterPki;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
        List<HostReport> reports = new FactGatherer(connections, forks).gather(List.copyOf(targets.values()), probes.all());
        Map<String, EtcdHostFacts> facts = new LinkedHashMap<>();
        Map<String, String> unreachable = new LinkedHashMap<>();
        for (HostReport r : reports) {
            if (r instanceof HostReport.Reachable ok) {
                facts.put(ok.host(), EtcdHostFacts.from(ok.facts(), probes));
            } else if (r instanceof HostReport.Unreachable down) {
                unreachable.put(down.host(), down.message());
            }
        }
        return new Facts(facts, unreachable);
    }

    /** What was gathered: facts by host, and why each unreachable host could not be asked. */
    record Facts(Map<String, EtcdHostFacts> byHost, Map<String, String> unreachable) {
    }

    ClusterPki pki() {
        return Pkis.of(desired);
    }


    @Override
    public void close() {
        connections.close();
    }
}
