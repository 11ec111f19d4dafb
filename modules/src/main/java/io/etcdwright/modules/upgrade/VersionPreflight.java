package io.etcdwright.modules.upgrade;

import io.etcd.jetcd.api.AlarmMember;
import io.etcd.jetcd.api.StatusResponse;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.ConditionNotMetException;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.modules.backup.MemberRpc;
import io.etcdwright.modules.membership.Health;
import io.etcdwright.modules.membership.TlsMaterial;
import io.grpc.StatusRuntimeException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What must hold before a version change touches any member, asked when the apply runs (a plan
 * may be applied minutes after it was made, and a member may have stopped meanwhile): every member
 * answers; each runs one of the versions the plan was made from (or the target, when resuming);
 * no alarm is raised (a NOSPACE or CORRUPT cluster must be repaired first, not restarted); and,
 * for 3.4 -> 3.5, authentication is off, because 3.5 cannot read 3.4's auth entries in the WAL.
 *
 * @param members         member name -> client URL, every member of the spec
 * @param allowedVersions the versions members may run now
 * @param refuseAuth      whether enabled authentication stops the change (3.4 -> 3.5)
 */
public record VersionPreflight(Health.Access access, Map<String, String> members, Set<String> allowedVersions,
                               boolean refuseAuth, String change) implements Condition {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

    @Override
    public String description() {
        return "every member answering, on " + String.join(" or ", new TreeSet<>(allowedVersions)) + ", no alarm"
                + (refuseAuth ? ", authentication off" : "");
    }

    @Override
    public void verify(StepContext context) {
        TlsMaterial tls = access.tls();
        List<String> problems = new ArrayList<>();
        List<String> versions = new ArrayList<>();
        MemberRpc answering = null;
        for (Map.Entry<String, String> m : members.entrySet()) {
            MemberRpc rpc = MemberRpc.connect(m.getValue(), tls, CALL_TIMEOUT);
            try {
                StatusResponse status = rpc.status();
                versions.add(m.getKey() + " " + status.getVersion());
                if (!allowedVersions.contains(status.getVersion())) {
                    problems.add("member " + m.getKey() + " runs etcd " + status.getVersion() + ", not one of the versions"
                            + " this plan was made from (" + String.join(", ", new TreeSet<>(allowedVersions)) + ")");
                }
                if (!status.getErrorsList().isEmpty()) {
                    problems.add("member " + m.getKey() + " reports errors: " + String.join("; ", status.getErrorsList()));
                }
                if (answering == null) {
                    answering = rpc;
                    rpc = null;
                }
            } catch (StatusRuntimeException e) {
                problems.add("member " + m.getKey() + " at " + m.getValue() + " does not answer (" + e.getStatus().getCode()
                        + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription()) + ")");
            } finally {
                if (rpc != null) {
                    rpc.close();
                }
            }
        }
        if (answering != null) {
            try (MemberRpc rpc = answering) {
                // Authentication first: asking for alarms needs permission once it is on.
                if (refuseAuth && authEnabled(rpc, problems)) {
                    problems.add("authentication is enabled, and etcd 3.5 cannot replay 3.4's authentication entries"
                            + " (etcd's 3.4 -> 3.5 upgrade guide): disable it for the upgrade ('etcdctl auth disable'),"
                            + " enable it again after");
                }
                try {
                    for (AlarmMember alarm : rpc.alarms()) {
                        problems.add("alarm " + alarm.getAlarm() + " is raised on member " + Long.toHexString(alarm.getMemberID())
                                + " (repair its cause, then 'etcdctl alarm disarm')");
                    }
                } catch (StatusRuntimeException e) {
                    problems.add("cannot ask " + rpc.clientUrl() + " for alarms (" + e.getStatus().getCode()
                            + (e.getStatus().getDescription() == null ? "" : ": " + e.getStatus().getDescription()) + ")");
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new ConditionNotMetException("not starting the " + change + ": " + String.join("; ", problems)
                    + ". Nothing has been changed on any member. What to do: bring every member back healthy on the versions"
                    + " above ('etcdwright status' shows them; 'journalctl -u etcd' on a member's host says why it stopped),"
                    + " then plan and apply again.");
        }
        context.note("members: " + String.join(", ", versions));
    }

    private static boolean authEnabled(MemberRpc rpc, List<String> problems) {
        try {
            return rpc.authEnabled();
        } catch (StatusRuntimeException e) {
            problems.add("cannot tell whether authentication is on at " + rpc.clientUrl() + " (" + e.getStatus().getCode() + ")");
            return false;
        }
    }
}
