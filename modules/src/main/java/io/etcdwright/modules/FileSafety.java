package io.etcdwright.modules;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.SafetyClass;

/**
 * The safety class of writing back a file etcd reads at start (its config file, its systemd unit)
 * on a member's host, from that host's facts alone. One rule for both, written down here because a
 * rewrite is either {@code routine} (someone changed the file on the host: put the spec back) or
 * {@code change} (the spec, or etcdwright, now renders another file: a person's edit to apply), and
 * the file cannot say which:
 * <ul>
 * <li>only its mode or owner differ: {@code routine}, since no spec field sets them;</li>
 * <li>it is missing on the host of a member that holds data: {@code routine}, since no spec edit
 *     removes it from a member that stays (a host becoming a member is classified by its planner:
 *     a join, a bootstrap);</li>
 * <li>its content differs and it was modified after the running etcd started: {@code routine}.
 *     etcdwright restarts etcd after every content write of these files in the same plan, so a file
 *     newer than the process was changed on the host since etcdwright last put it there, for the spec
 *     as it is (the plan that restarts etcd is also planned from this spec);</li>
 * <li>otherwise (content differs, the file older than the process, or etcd not running): the facts
 *     cannot tell a host edit from a spec edit, so the stricter {@code change}.</li>
 * </ul>
 * What this gets wrong, knowingly: an apply interrupted between writing a file and the restart,
 * followed by another spec edit before the next plan, looks like a host edit ({@code routine}); a
 * host edit whose author restarted etcd looks like a spec edit ({@code change}: held for a person,
 * the safe side).
 */
public final class FileSafety {
    private FileSafety() {
    }

    /**
     * @param have         the file on the host
     * @param contentRight whether its content is what the spec renders (only its attributes differ)
     */
    public static SafetyClass ofRewrite(MemberContext member, FileState have, boolean contentRight) {
        if (!have.exists()) {
            return member.facts().member().hasMemberData() ? SafetyClass.ROUTINE : SafetyClass.CHANGE;
        }
        if (contentRight) {
            return SafetyClass.ROUTINE;
        }
        long started = member.facts().service().startedMicros();
        boolean editedSinceStart = member.facts().service().running() && started > 0 && have.modifiedMicros() > started;
        return editedSinceStart ? SafetyClass.ROUTINE : SafetyClass.CHANGE;
    }
}
