package io.etcdwright.modules.membership;

import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.CommandResult;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.modules.EtcdLayout;

import java.time.Duration;
import java.util.List;

/**
 * Health as etcd itself reports it, asked on a member host with its admin certificate, so the
 * check works whether or not the workstation can reach the client port.
 */
public final class Health {
    private Health() {
    }

    /** etcdctl against the given client URLs; exit 0 only when every endpoint is healthy. */
    public static CommandResult check(HostSession session, EtcdLayout layout, List<String> clientUrls) {
        String cmd = layout.localEtcdctl().replaceFirst("--endpoints=\\S+", "--endpoints=" + String.join(",", clientUrls))
                + " endpoint health";
        return session.run(cmd);
    }

    /**
     * Waits until every endpoint answers healthy. Bootstrap needs a quorum of members up before
     * any reports healthy, so the first seconds of "unhealthy" are normal, not failures.
     */
    public static void await(StepContext context, HostSession session, EtcdLayout layout, List<String> clientUrls,
                             Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        CommandResult last = null;
        long nextNote = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            last = check(session, layout, clientUrls);
            if (last.succeeded()) {
                return;
            }
            if (System.nanoTime() > nextNote) {
                context.note("still waiting for " + String.join(", ", clientUrls) + " to report healthy");
                nextNote = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            }
            Thread.sleep(250);
        }
        String detail = last == null ? "" : (last.stdout() + last.stderr()).strip();
        throw new IllegalStateException("etcd did not become healthy within " + timeout.toSeconds() + " s: "
                + detail + "\nLook at 'journalctl -u " + EtcdLayout.UNIT + "' on the members and at 'etcdwright status'.");
    }
}
