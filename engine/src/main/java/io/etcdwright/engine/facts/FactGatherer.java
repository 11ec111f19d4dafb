package io.etcdwright.engine.facts;

import io.etcdwright.engine.exec.Parallel;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.SshConnections;
import io.etcdwright.engine.ssh.SshException;
import io.etcdwright.engine.ssh.SshTarget;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Runs every probe on every host: one script, one round trip a host, hosts in parallel. */
public final class FactGatherer {
    private final SshConnections connections;
    private final int forks;

    public FactGatherer(SshConnections connections, int forks) {
        this.connections = connections;
        this.forks = forks;
    }

    /** Reports in the order of {@code targets}; an unreachable host never stops the others. */
    public List<HostReport> gather(List<SshTarget> targets, List<? extends Probe<?>> probes) {
        RemoteCommand script = FactsScript.command(probes);
        return Parallel.map(targets, forks, target -> gatherOne(target, probes, script));
    }

    private HostReport gatherOne(SshTarget target, List<? extends Probe<?>> probes, RemoteCommand script) {
        long start = System.nanoTime();
        CommandResult result;
        try {
            // Bounded by the run's --command-timeout, like every other command on the host.
            result = connections.session(target).run(script);
        } catch (SshException e) {
            return new HostReport.Unreachable(target.name(), e.reason(), e.detail());
        }
        if (!result.succeeded()) {
            String why = result.stderr().isBlank() ? "exit code " + result.exitCode() : result.stderr().strip();
            return new HostReport.Unreachable(target.name(), SshException.Reason.PROTOCOL,
                    "the facts script failed: " + why);
        }
        long receivedAt = System.currentTimeMillis();
        Map<String, String> raw = FactsScript.split(result.stdout());
        long skew = 0;
        try {
            skew = Long.parseLong(raw.getOrDefault(FactsScript.CLOCK, "")) - receivedAt;
        } catch (NumberFormatException e) {
            // a host without %N in date: no skew figure rather than a wrong one
        }
        Map<String, Object> parsed = new LinkedHashMap<>();
        for (Probe<?> probe : probes) {
            parsed.put(probe.name(), probe.parse(raw.getOrDefault(probe.name(), "")));
        }
        return new HostReport.Reachable(new HostFacts(target.name(), parsed, raw,
                Duration.ofNanos(System.nanoTime() - start), skew));
    }
}
