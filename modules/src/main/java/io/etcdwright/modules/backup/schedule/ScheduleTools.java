package io.etcdwright.modules.backup.schedule;

import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.modules.cluster.EtcdHostFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A member's host that lacks a tool the backup script needs is a refusal, not a timer that fails at 3 a.m. */
public final class ScheduleTools {
    private ScheduleTools() {
    }

    public static List<Refusal> refusals(ScheduleTarget target, List<Member> members, Map<String, EtcdHostFacts> facts) {
        List<Refusal> refusals = new ArrayList<>();
        for (Member m : members) {
            EtcdHostFacts f = facts.get(m.host().name());
            if (f == null || !f.schedule().probed()) {
                continue; // unreachable (refused on its own), or facts recorded before this was asked
            }
            List<String> missing = target.tools().stream().filter(t -> !f.schedule().has(t)).toList();
            if (!missing.isEmpty()) {
                refusals.add(new Refusal("backup-tools-missing", m.host().name(), "scheduled backups to the "
                        + target.store().type() + " store '" + target.store().name() + "' need " + String.join(", ", missing)
                        + " on every member, and " + m.host().name() + " has no " + String.join(" and no ", missing),
                        "install " + packages(missing) + " on " + m.host().name() + " (Debian/Ubuntu: apt-get install "
                                + packages(missing) + "), then plan again"));
            }
        }
        return refusals;
    }

    /** Debian's package names: sftp and ssh come with openssh-client. */
    private static String packages(List<String> tools) {
        return String.join(" ", tools.stream().map(t -> t.equals("sftp") || t.equals("ssh") ? "openssh-client" : t)
                .distinct().toList());
    }
}
