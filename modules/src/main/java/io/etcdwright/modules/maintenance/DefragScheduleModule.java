package io.etcdwright.modules.maintenance;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.engine.spec.Maintenance;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.cluster.Endpoints;
import io.etcdwright.modules.lock.ClusterLock;
import io.etcdwright.modules.pki.HostCertificates;
import io.etcdwright.modules.timer.HostScripts;
import io.etcdwright.modules.timer.TimerJob;
import io.etcdwright.modules.timer.TimerJob.DesiredFile;

import static io.etcdwright.modules.maintenance.DefragScheduleJob.CONF;
import static io.etcdwright.modules.maintenance.DefragScheduleJob.CONF_DIR;
import static io.etcdwright.modules.maintenance.DefragScheduleJob.JOB;
import static io.etcdwright.modules.maintenance.DefragScheduleJob.SCRIPT;
import static io.etcdwright.modules.maintenance.DefragScheduleJob.SERVICE;
import static io.etcdwright.modules.maintenance.DefragScheduleJob.TIMER;

import java.nio.charset.StandardCharsets;
import java.time.DayOfWeek;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * Scheduled defragmentation on one member's host (maintenance.defrag.schedule): a script that
 * defragments only this member, its root-only configuration, and a systemd timer whose calendar
 * is the spec's time plus the member's position × the stagger, so that no two members start
 * together (the script's cluster lock makes sure of it). With no schedule in the spec, what an
 * earlier one installed is removed. Nothing here touches etcd itself.
 */
public final class DefragScheduleModule implements MemberModule {
    private final Optional<Maintenance.Defrag> defrag;
    private final List<Member> members;

    /** {@code defrag}: the spec's maintenance.defrag when it has a schedule, else empty (remove). */
    public DefragScheduleModule(ClusterSpec spec, List<Member> members) {
        this.defrag = spec.maintenance().defrag().filter(d -> d.schedule().isPresent());
        this.members = List.copyOf(members);
    }

    public static byte[] script() {
        return HostScripts.load(DefragScheduleModule.class, "etcd-defrag.sh");
    }

    /**
     * systemd's OnCalendar for the member at {@code position}: the spec's time plus position ×
     * stagger, in UTC; past midnight it moves to the next day, and so do its days.
     */
    public static String calendar(Maintenance.DefragSchedule schedule, int position) {
        int minutes = schedule.at().getHour() * 60 + schedule.at().getMinute() + position * schedule.staggerMinutes();
        int dayShift = minutes / 1440;
        int m = minutes % 1440;
        String time = String.format("*-*-* %02d:%02d:00 UTC", m / 60, m % 60);
        if (schedule.days().isEmpty()) {
            return time;
        }
        String days = schedule.days().stream().map(d -> d.plus(dayShift)).sorted().distinct()
                .map(DefragScheduleModule::dayName).collect(Collectors.joining(","));
        return days + " " + time;
    }

    /** The member's position among the members: its offset in the stagger. */
    int position(Member member) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).name().equals(member.name())) {
                return i;
            }
        }
        return members.size();
    }

    /** defrag.conf: KEY=VALUE lines the script reads as data (a value with a control character is refused). */
    public static String conf(ClusterSpec spec, Maintenance.Defrag defrag, Member member, List<Member> members, EtcdLayout layout) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("CLUSTER", spec.name());
        values.put("MEMBER", member.name());
        String endpoint = Endpoints.clientUrl(member, layout);
        values.put("ENDPOINT", endpoint);
        values.put("ENDPOINTS", members.stream().map(m -> Endpoints.clientUrl(m, layout)).collect(Collectors.joining(",")));
        // The member's own healthcheck client: no admin key on the hosts. Plain HTTP (the layout's, which
        // follows a transport migration member by member) needs none.
        values.put("TLS", Boolean.toString(endpoint.startsWith("https://")));
        values.put("CACERT", HostCertificates.certPath(HostCertificates.CA));
        values.put("CERT", HostCertificates.certPath(HostCertificates.HEALTHCHECK));
        values.put("KEY", HostCertificates.keyPath(HostCertificates.HEALTHCHECK));
        // The links to the active version: a version change does not rewrite this file.
        values.put("ETCD_BIN_DIR", EtcdLayout.LINK_DIR);
        values.put("LOCK_KEY", ClusterLock.key(spec.name()));
        values.put("MIN_FRAGMENTATION_PERCENT", Integer.toString(defrag.minFragmentationPercent()));
        values.put("MIN_DB_SIZE_BYTES", Long.toString((long) defrag.minDbSizeMiB() << 20));
        spec.monitoring().textfileDir().ifPresent(dir -> values.put(TimerJob.Metrics.CONF_KEY, dir));
        return TimerJob.confText(SCRIPT, CONF, values);
    }

    public static String service(ClusterSpec spec, Member member) {
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright scheduled defragmentation of member %s of etcd cluster %s
                After=network-online.target %s
                Wants=network-online.target

                [Service]
                Type=oneshot
                ExecStart=%s %s
                UMask=0077
                PrivateTmp=yes
                TimeoutStartSec=30min
                """.formatted(member.name(), spec.name(), EtcdLayout.UNIT, SCRIPT, CONF_DIR);
    }

    /** The timer: the member's own calendar; a missed tick (host down) is not caught up at boot. */
    public static String timer(ClusterSpec spec, Member member, String calendar) {
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright scheduled defragmentation of member %s of etcd cluster %s

                [Timer]
                OnCalendar=%s
                AccuracySec=1s
                Persistent=false
                Unit=%s

                [Install]
                WantedBy=timers.target
                """.formatted(member.name(), spec.name(), calendar, SERVICE);
    }

    public List<DesiredFile> desiredFiles(MemberContext member) {
        Maintenance.Defrag d = defrag.orElseThrow();
        String calendar = calendar(d.schedule().orElseThrow(), position(member.member()));
        return List.of(
                new DesiredFile(RemoteFile.rootOwned(SCRIPT, "0755"), script(), false),
                new DesiredFile(RemoteFile.rootOwned(CONF, "0600"), utf8(conf(member.spec(), d, member.member(), members,
                        member.layout())), false),
                new DesiredFile(RemoteFile.rootOwned(JOB.serviceFile(), "0644"), utf8(service(member.spec(), member.member())), false),
                new DesiredFile(RemoteFile.rootOwned(JOB.timerFile(), "0644"), utf8(timer(member.spec(), member.member(), calendar)),
                        false));
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        return defrag.isPresent() ? install(member) : remove(member);
    }

    private Optional<Change> install(MemberContext member) {
        List<DesiredFile> files = desiredFiles(member);
        ScheduleHostFacts timer = member.facts().defragSchedule();
        TimerJob.Differences d = JOB.differences(member.facts()::file, timer, files);
        if (d.none()) {
            return Optional.empty();
        }
        Maintenance.Defrag defrag = this.defrag.get();
        Step.Builder step = Step.on(member.host(), "maintenance", "defrag-schedule")
                .kind(d.fresh() ? ChangeKind.CREATE : ChangeKind.UPDATE)
                .safety(d.safety()) // a disabled timer enabled again is routine; new or other files, a change
                .summary("scheduled defragmentation of member " + member.member().name() + " ("
                        + calendar(defrag.schedule().get(), position(member.member())) + ", when at least "
                        + defrag.minFragmentationPercent() + "% free and " + defrag.minDbSizeMiB() + " MiB; " + TIMER + ")")
                .reason(d.fresh() ? "not installed" : String.join(", ", d.why()))
                .observed(JOB.observed(member.facts()::file, timer))
                .diff(d.differing().stream().filter(f -> !f.file().path().equals(SCRIPT)).findFirst()
                        .map(f -> new FileDiff(f.file().path(), member.facts().file(f.file().path()).content().orElse(""),
                                new String(f.content(), StandardCharsets.UTF_8))).orElse(null));
        return Optional.of(new Change(step, ctx -> JOB.apply(ctx.session(), files, d.stale()), Optional.empty()));
    }

    private Optional<Change> remove(MemberContext member) {
        ScheduleHostFacts timer = member.facts().defragSchedule();
        if (!timer.probed() || !JOB.present(member.facts()::file, timer)) {
            return Optional.empty();
        }
        Step.Builder step = Step.on(member.host(), "maintenance", "defrag-schedule").kind(ChangeKind.DELETE)
                .safety(io.etcdwright.engine.plan.SafetyClass.CHANGE) // the spec dropped the schedule
                .summary("remove scheduled defragmentation (" + TIMER + ", its script, configuration and run records)")
                .reason("the spec has no maintenance.defrag.schedule")
                .observed(JOB.observed(member.facts()::file, timer));
        return Optional.of(new Change(step, ctx -> JOB.removeAll(ctx.session()), Optional.empty()));
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** systemd's (and the spec's) name of a day. */
    static String dayName(DayOfWeek d) {
        return List.of("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun").get(d.getValue() - 1);
    }
}
