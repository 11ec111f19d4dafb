package io.etcdwright.modules.monitoring;

import io.etcdwright.engine.facts.FilesProbe;
import io.etcdwright.engine.facts.LaterProbe;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.DesiredState;
import io.etcdwright.engine.spec.Member;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.backup.schedule.ScheduleHostFacts;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.timer.HostScripts;
import io.etcdwright.modules.timer.TimerJob;
import io.etcdwright.modules.timer.TimerJob.DesiredFile;

import static io.etcdwright.modules.monitoring.CertificateMetricsJob.CONF;
import static io.etcdwright.modules.monitoring.CertificateMetricsJob.CONF_DIR;
import static io.etcdwright.modules.monitoring.CertificateMetricsJob.JOB;
import static io.etcdwright.modules.monitoring.CertificateMetricsJob.SCRIPT;
import static io.etcdwright.modules.monitoring.CertificateMetricsJob.SERVICE;
import static io.etcdwright.modules.monitoring.CertificateMetricsJob.TEXTFILE;
import static io.etcdwright.modules.monitoring.CertificateMetricsJob.TIMER;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The certificates' expiry times on every member's host, for node_exporter's textfile collector
 * (monitoring in the spec; docs/monitoring.md): a third timer job beside scheduled backups and
 * defragmentation, with the same machinery ({@link TimerJob}), whose script writes
 * {@value CertificateMetricsJob#TEXTFILE} once a day. Every apply keeps it current: the job runs when installed, when the
 * file is missing or older than a certificate on the host, and after any step of the plan that
 * writes certificates there ({@link #refreshAfterCertificates}). Without monitoring in the spec,
 * what an earlier one installed is removed, its textfile with it.
 */
public final class CertificateMetricsModule implements MemberModule {
    private final Optional<String> textfileDir;

    public CertificateMetricsModule(DesiredState desired) {
        this.textfileDir = desired.spec().monitoring().textfileDir();
    }

    public static byte[] script() {
        return HostScripts.load(CertificateMetricsModule.class, "etcd-cert-metrics.sh");
    }

    public static String conf(String cluster, Member member, String textfileDir) {
        Map<String, String> values = new LinkedHashMap<>();
        values.put("CLUSTER", cluster);
        values.put("MEMBER", member.name());
        values.put("PKI_DIR", EtcdLayout.PKI_DIR);
        values.put(TimerJob.Metrics.CONF_KEY, textfileDir);
        return TimerJob.confText(SCRIPT, CONF, values);
    }

    public static String service(String cluster, Member member) {
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright certificate expiry metrics of member %s of etcd cluster %s

                [Service]
                Type=oneshot
                ExecStart=%s %s
                UMask=0077
                PrivateTmp=yes
                Nice=10
                TimeoutStartSec=5min
                """.formatted(member.name(), cluster, SCRIPT, CONF_DIR);
    }

    /** Daily, and at the next boot when a day was missed while the host was down. */
    public static String timer(String cluster, Member member) {
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcdwright certificate expiry metrics of member %s of etcd cluster %s, daily

                [Timer]
                OnCalendar=daily
                RandomizedDelaySec=1h
                Persistent=true
                Unit=%s

                [Install]
                WantedBy=timers.target
                """.formatted(member.name(), cluster, SERVICE);
    }

    List<DesiredFile> desiredFiles(MemberContext member, String dir) {
        String cluster = member.spec().name();
        return List.of(
                new DesiredFile(RemoteFile.rootOwned(SCRIPT, "0755"), script(), false),
                new DesiredFile(RemoteFile.rootOwned(CONF, "0600"), utf8(conf(cluster, member.member(), dir)), false),
                new DesiredFile(RemoteFile.rootOwned(JOB.serviceFile(), "0644"), utf8(service(cluster, member.member())), false),
                new DesiredFile(RemoteFile.rootOwned(JOB.timerFile(), "0644"), utf8(timer(cluster, member.member())), false));
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        return textfileDir.isPresent() ? install(member, textfileDir.get()) : remove(member);
    }

    private Optional<Change> install(MemberContext member, String dir) {
        CertificateMetricsFacts facts = member.facts().certMetrics();
        List<DesiredFile> files = desiredFiles(member, dir);
        TimerJob.Differences d = JOB.differences(member.facts()::file, facts.timer(), files);
        if (!d.none()) {
            Step.Builder step = Step.on(member.host(), "monitoring", "certificate-metrics")
                    .kind(d.fresh() ? ChangeKind.CREATE : ChangeKind.UPDATE)
                    .safety(d.safety())
                    .summary("certificate expiry metrics in " + dir + "/" + TEXTFILE + ", daily and now (" + TIMER + ")")
                    .reason(d.fresh() ? "not installed" : String.join(", ", d.why()))
                    .observed(JOB.observed(member.facts()::file, facts.timer()))
                    .diff(d.differing().stream().filter(f -> !f.file().path().equals(SCRIPT)).findFirst()
                            .map(f -> new FileDiff(f.file().path(), member.facts().file(f.file().path()).content().orElse(""),
                                    new String(f.content(), StandardCharsets.UTF_8))).orElse(null));
            return Optional.of(new Change(step, ctx -> {
                JOB.apply(ctx.session(), files, d.stale());
                refresh(ctx.session());
                return Outcome.CHANGED;
            }, Optional.empty()));
        }
        Optional<String> stale = facts.freshness().staleness(dir + "/" + TEXTFILE);
        if (stale.isEmpty()) {
            return Optional.empty();
        }
        // Metrics older than the certificates they describe: written again, as the job does daily.
        Step.Builder step = Step.on(member.host(), "monitoring", "certificate-metrics").kind(ChangeKind.UPDATE)
                .safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE)
                .summary("write the certificate expiry metrics " + dir + "/" + TEXTFILE)
                .reason(stale.get())
                .observed(facts.freshness().observed());
        return Optional.of(new Change(step, ctx -> refresh(ctx.session()), Optional.empty()));
    }

    private Optional<Change> remove(MemberContext member) {
        ScheduleHostFacts timer = member.facts().certMetrics().timer();
        if (!timer.probed() || !JOB.present(member.facts()::file, timer)) {
            return Optional.empty();
        }
        Step.Builder step = Step.on(member.host(), "monitoring", "certificate-metrics").kind(ChangeKind.DELETE)
                .safety(io.etcdwright.engine.plan.SafetyClass.CHANGE) // the spec dropped its monitoring section
                .summary("remove the certificate expiry metrics (" + TIMER + ", its script, configuration and " + TEXTFILE + ")")
                .reason("the spec has no monitoring")
                .observed(JOB.observed(member.facts()::file, timer));
        return Optional.of(new Change(step, ctx -> JOB.removeAll(ctx.session()), Optional.empty()));
    }

    /** Runs the job now (as its service would, and waiting for it): CHANGED when the metrics it wrote differ. */
    static Outcome refresh(HostSession session) {
        String said = session.run(RemoteCommand.exec(SCRIPT, CONF_DIR)).orThrow(session.target().name()).stdout();
        return said.contains("changed") ? Outcome.CHANGED : Outcome.OK;
    }

    /**
     * With monitoring, a step that writes each member host's metrics again after every step of
     * {@code steps} that writes certificates there (module pki: renewals, reissues, a CA rotation's
     * phases), so that the apply which changed a certificate also leaves its expiry right, and the
     * next apply has nothing left to do. After this module's own step on the host too, which
     * installs the script. Appended to {@code steps}.
     */
    public static void refreshAfterCertificates(DesiredState desired, List<Step> steps) {
        if (desired.spec().monitoring().textfileDir().isEmpty()) {
            return;
        }
        String dir = desired.spec().monitoring().textfileDir().get();
        List<Step> added = new ArrayList<>();
        for (Member m : desired.members()) {
            String host = m.host().name();
            List<Step> pki = steps.stream().filter(s -> s.host().equals(Optional.of(host)) && s.module().equals("pki")).toList();
            if (pki.isEmpty()) {
                continue;
            }
            List<Step> before = new ArrayList<>(pki);
            steps.stream().filter(s -> s.host().equals(Optional.of(host)) && s.module().equals("monitoring")).forEach(before::add);
            // As careful as the certificate steps it follows: it belongs to them.
            added.add(Step.on(host, "monitoring", "certificate-metrics-after-pki").kind(ChangeKind.ACTION)
                    .safety(io.etcdwright.engine.plan.SafetyClass.strictest(before.stream().map(Step::safety).toList(), io.etcdwright.engine.plan.SafetyClass.ROUTINE))
                    .summary("write the certificate expiry metrics " + dir + "/" + TEXTFILE + " again")
                    .reason("certificates change here in this plan")
                    .observed("")
                    .after(before)
                    .does(ctx -> refresh(ctx.session())));
        }
        steps.addAll(added);
    }

    /** The script needs openssl on every member (ca-certificates brings it on Debian). */
    public static List<Refusal> refusals(DesiredState desired, Map<String, EtcdHostFacts> facts) {
        if (desired.spec().monitoring().textfileDir().isEmpty()) {
            return List.of();
        }
        List<Refusal> refusals = new ArrayList<>();
        for (Member m : desired.members()) {
            EtcdHostFacts f = facts.get(m.host().name());
            if (f != null && f.schedule().probed() && !f.schedule().has("openssl")) {
                refusals.add(new Refusal("monitoring-tools-missing", m.host().name(), "the certificate expiry metrics"
                        + " (monitoring) read the certificates with openssl, and " + m.host().name() + " has none",
                        "install openssl on " + m.host().name() + " (Debian/Ubuntu: apt-get install openssl), then plan again"));
            }
        }
        return refusals;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
