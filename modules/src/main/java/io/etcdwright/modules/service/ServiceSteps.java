package io.etcdwright.modules.service;

import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.membership.Health;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

/** The service module's operations: unit file, start, safe restart. */
public final class ServiceSteps {
    private ServiceSteps() {
    }

    public static Outcome writeUnit(HostSession session, String unitText, boolean unitDiffers) {
        if (unitDiffers) {
            session.upload(unitText.getBytes(StandardCharsets.UTF_8), RemoteFile.rootOwned(EtcdLayout.UNIT_FILE, "0644"));
        }
        session.run("systemctl daemon-reload && systemctl enable " + EtcdLayout.UNIT + " 2>&1")
                .orThrow(session.target().name());
        return Outcome.CHANGED;
    }

    /**
     * Starts without waiting: a bootstrapping member reports ready only once a quorum of its
     * peers is up, so the members must be started side by side and waited for together.
     */
    public static Outcome start(HostSession session) {
        session.run("systemctl reset-failed " + EtcdLayout.UNIT + " 2>/dev/null; systemctl start --no-block "
                + EtcdLayout.UNIT).orThrow(session.target().name());
        return Outcome.CHANGED;
    }

    /**
     * Restarts one member of a running cluster, but only while every other member is healthy:
     * restarting a member while another is down can leave the cluster below quorum.
     */
    public static Outcome restart(StepContext context, HostSession session, EtcdLayout layout, String self,
                                  List<String> otherClientUrls, int memberCount) throws InterruptedException {
        if (!otherClientUrls.isEmpty()) {
            CommandResult others = Health.check(session, layout, otherClientUrls);
            if (!others.succeeded()) {
                throw new IllegalStateException("not restarting " + self + ": not every other member is healthy, and with "
                        + memberCount + " members a restart now could lose quorum.\n"
                        + (others.stdout() + others.stderr()).strip()
                        + "\nBring the unhealthy member back (etcdwright status shows which), then apply again.");
            }
        } else if (memberCount == 1) {
            context.note("single-member cluster: unavailable for the few seconds of the restart");
        }
        session.run("systemctl restart " + EtcdLayout.UNIT, null, Duration.ofMinutes(3)).orThrow(session.target().name());
        return Outcome.CHANGED;
    }
}
