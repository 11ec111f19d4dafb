package io.etcdwright.cli;

import io.etcdwright.engine.facts.FactGatherer;
import io.etcdwright.engine.facts.HostReport;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Maintenance;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.maintenance.DefragRuns;
import io.etcdwright.modules.maintenance.DefragScheduleModule;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** The scheduled defragmentation's part of {@code status}: each member's last run, read over SSH (one round trip a host). */
final class DefragStatus {
    private DefragStatus() {
    }

    /** Empty when the spec schedules no defragmentation. */
    static Optional<Map<String, Object>> of(DesiredState desired, ConnectionOptions connection) {
        Optional<Maintenance.Defrag> defrag = desired.spec().maintenance().defrag().filter(d -> d.schedule().isPresent());
        if (defrag.isEmpty()) {
            return Optional.empty();
        }
        Map<String, ScheduleHostFacts> runs = new HashMap<>();
        try (SshConnections connections = Hosts.connect(desired.inventory(), connection)) {
            var reports = new FactGatherer(connections, connection.forks).gather(
                    desired.members().stream().map(Member::host).map(Hosts::target).toList(), java.util.List.of(DefragScheduleModule.PROBE));
            for (HostReport r : reports) {
                if (r instanceof HostReport.Reachable ok) {
                    desired.members().stream().filter(m -> m.host().name().equals(r.host())).findFirst()
                            .ifPresent(m -> runs.put(m.name(), ok.facts().get(DefragScheduleModule.PROBE)));
                }
            }
        }
        return Optional.of(DefragRuns.document(defrag.get(), desired.members(), runs));
    }
}
