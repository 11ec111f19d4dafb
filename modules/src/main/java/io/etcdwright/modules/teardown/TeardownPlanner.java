package io.etcdwright.modules.teardown;

import io.etcdwright.modules.maintenance.DefragScheduleJob;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.backup.schedule.BackupScheduleModule;
import io.etcdwright.modules.backup.schedule.ScheduleLayout;
import io.etcdwright.modules.cluster.EtcdHostFacts;
import io.etcdwright.modules.data.DataDirWipe;
import io.etcdwright.modules.pki.ClientHostFacts;
import io.etcdwright.modules.pki.ClientHostFiles;
import io.etcdwright.modules.pki.ClientHostsRecord;
import io.etcdwright.modules.pki.ClusterPki;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The teardown module: stop and remove what etcdwright put on the hosts. Data directories stay
 * unless the operator passed --wipe-data: deleting a member's data is the one thing here that
 * cannot be undone. The etcd user and group stay too, so files anyone else owns keep an owner.
 * Hosts given client files without running a member lose exactly those files (their directory
 * may hold anyone's, so it stays) and are struck off the workstation's record of them.
 */
public final class TeardownPlanner {
    private TeardownPlanner() {
    }

    /**
     * $1 the unit, $2 its file. Stopping a unit that is not there is not an error: teardown must be
     * re-runnable. Prints "changed" when there was a unit file or a running etcd.
     */
    private static final String STOP_AND_REMOVE_UNIT_CODE = "if [ -e \"$2\" ] || systemctl is-active --quiet \"$1\"; then"
            + " echo changed; fi; systemctl disable --now \"$1\" >/dev/null 2>&1;"
            + " rm -f -- \"$2\" && systemctl daemon-reload && systemctl reset-failed \"$1\" 2>/dev/null; true";
    static final RemoteCommand STOP_AND_REMOVE_UNIT = RemoteCommand.script(STOP_AND_REMOVE_UNIT_CODE,
            EtcdLayout.UNIT, EtcdLayout.UNIT_FILE);
    /** -v: rm names what it removed, so an interrupted teardown run again reports OK where nothing was left. */
    static final RemoteCommand REMOVE_CONFIG = RemoteCommand.exec("rm", "-rfv", "--", EtcdLayout.CONFIG_DIR);
    static final RemoteCommand REMOVE_BINARIES = removeBinaries();

    private static RemoteCommand removeBinaries() {
        List<String> argv = new ArrayList<>(List.of("rm", "-rfv", "--", EtcdLayout.INSTALL_ROOT));
        for (String tool : EtcdLayout.TOOLS) {
            argv.add(EtcdLayout.LINK_DIR + "/" + tool);
        }
        return new RemoteCommand.Exec(argv);
    }

    /**
     * @param clients what the hosts that hold client files without running a member have
     *                ({@link ClientHostFacts#hostsToAsk}: those the spec names and those recorded)
     * @param record  the workstation's record of those hosts, struck off as their files go
     */
    public static Plan plan(String clusterName, Map<String, EtcdHostFacts> facts, Map<String, String> unreachable,
                            EtcdLayout layout, boolean wipeData, ClientHostFacts clients, ClientHostsRecord record) {
        return plan(clusterName, facts, unreachable, layout, wipeData, clients, record, java.util.Optional.empty());
    }

    /**
     * As above, with the workstation's PKI: what a client host holds at kubeadm's paths is removed
     * when it is the workstation's (etcdwright put it there); without it, nothing there is.
     */
    public static Plan plan(String clusterName, Map<String, EtcdHostFacts> facts, Map<String, String> unreachable,
                            EtcdLayout layout, boolean wipeData, ClientHostFacts clients, ClientHostsRecord record,
                            java.util.Optional<ClusterPki> pki) {
        if (!unreachable.isEmpty()) {
            List<io.etcdwright.engine.plan.Refusal> refusals = new ArrayList<>();
            unreachable.forEach((host, why) -> refusals.add(new io.etcdwright.engine.plan.Refusal("unreachable-host", host,
                    "unreachable (" + why + "); a teardown without it would leave its etcd running, still a member",
                    "bring the host back (power, network, sshd) and destroy again")));
            return Plan.refused(clusterName, refusals, List.of());
        }
        List<Step> steps = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (EtcdHostFacts f : facts.values()) {
            String host = f.host();
            List<Step> after = new ArrayList<>();
            // First the backup timer: a tick during teardown would fail, and one after it forever.
            boolean backupsPresent = f.schedule().timerEnabled() || f.schedule().timerActive()
                    || ScheduleLayout.FILES.stream().anyMatch(p -> f.file(p).exists());
            if (backupsPresent) {
                Step backups = Step.on(host, "teardown", "backup-schedule").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                        .summary("remove scheduled backups (" + ScheduleLayout.TIMER + ", script, configuration, credentials)")
                        .reason("installed")
                        .observed("timer enabled=" + f.schedule().timerEnabled() + " active=" + f.schedule().timerActive())
                        .does(ctx -> BackupScheduleModule.removeAll(ctx.session()));
                steps.add(backups);
                after.add(backups);
            }
            // And the defragmentation timer, for the same reason.
            if (DefragScheduleJob.JOB.files().stream().anyMatch(p -> f.file(p).exists())
                    || f.defragSchedule().timerEnabled() || f.defragSchedule().timerActive()) {
                Step defrag = Step.on(host, "teardown", "defrag-schedule").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                        .summary("remove scheduled defragmentation (" + DefragScheduleJob.TIMER + ", script, configuration)")
                        .reason("installed")
                        .observed("timer enabled=" + f.defragSchedule().timerEnabled() + " active=" + f.defragSchedule().timerActive())
                        .does(ctx -> DefragScheduleJob.JOB.removeAll(ctx.session()));
                steps.add(defrag);
                after.add(defrag);
            }
            // And the certificate metrics' timer and textfile: node_exporter would serve a destroyed member's expiries.
            var certMetrics = io.etcdwright.modules.monitoring.CertificateMetricsJob.JOB;
            if (certMetrics.files().stream().anyMatch(p -> f.file(p).exists())
                    || f.certMetrics().timer().timerEnabled() || f.certMetrics().timer().timerActive()) {
                Step metrics = Step.on(host, "teardown", "certificate-metrics").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                        .summary("remove the certificate expiry metrics (" + certMetrics.timer() + ", script, configuration, textfile)")
                        .reason("installed")
                        .observed("timer enabled=" + f.certMetrics().timer().timerEnabled() + " active="
                                + f.certMetrics().timer().timerActive())
                        .does(ctx -> certMetrics.removeAll(ctx.session()));
                steps.add(metrics);
                after.add(metrics);
            }
            boolean unitPresent = f.file(EtcdLayout.UNIT_FILE).exists() || f.service().running() || f.service().enabled();
            if (unitPresent) {
                Step stop = Step.on(host, "teardown", "service").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                        .summary("stop and remove " + EtcdLayout.UNIT)
                        .reason(f.service().running() ? "running" : "installed")
                        .observed(f.service().toString())
                        .after(after)
                        .does(ctx -> {
                            return outcome(ctx.session().run(STOP_AND_REMOVE_UNIT).orThrow(host).stdout());
                        });
                steps.add(stop);
                after.add(stop);
            }
            boolean configPresent = f.setup().dirs().containsKey(EtcdLayout.CONFIG_DIR);
            if (configPresent) {
                steps.add(Step.on(host, "teardown", "config").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                        .summary("remove " + EtcdLayout.CONFIG_DIR + " (config and certificates)").reason("present")
                        .after(after).does(ctx -> {
                            return outcome(ctx.session().run(REMOVE_CONFIG).orThrow(host).stdout());
                        }));
            }
            boolean binariesPresent = !f.install().installedVersions().isEmpty() || f.install().etcdVersion().isPresent();
            if (binariesPresent) {
                steps.add(Step.on(host, "teardown", "binaries").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                        .summary("remove etcd binaries").reason("installed: " + String.join(", ", f.install().installedVersions()))
                        .after(after).does(ctx -> {
                            return outcome(ctx.session().run(REMOVE_BINARIES).orThrow(host).stdout());
                        }));
            }
            if (f.member().dataDirExists()) {
                if (wipeData) {
                    DataDirWipe.pathRefusal(layout.dataDir()).ifPresent(why -> warnings.add(host + ": data dir "
                            + layout.dataDir() + " will not be deleted: " + why));
                    steps.add(Step.on(host, "teardown", "data").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                            .summary("DELETE data dir " + layout.dataDir())
                            .reason("--wipe-data" + (f.member().hasMemberData() ? "; it holds member data" : ""))
                            .after(after)
                            .does(ctx -> DataDirWipe.outcome(DataDirWipe.wipe(ctx.session(), layout.dataDir()))));
                } else if (f.member().hasMemberData()) {
                    warnings.add(host + ": data dir " + layout.dataDir() + " is kept (it holds member data); "
                            + "pass --wipe-data to delete it");
                }
            }
        }
        clientFiles(clients, record, pki, facts.keySet(), steps, warnings);
        // Destroys the cluster: only ever a person's.
        return new Plan(clusterName, steps, List.of(), warnings).atLeast(SafetyClass.NEVER);
    }

    /**
     * The client files of each host that runs no member, removed (only etcdwright's file names,
     * as apply removes them once a host is no longer named), and the host struck off the record
     * after them. A host that cannot be reached is warned about and stays recorded: a teardown
     * of the members must not wait on a control plane host, and a destroy run again finds it.
     */
    private static void clientFiles(ClientHostFacts clients, ClientHostsRecord record, java.util.Optional<ClusterPki> pki,
                                    Set<String> memberHosts, List<Step> steps, List<String> warnings) {
        String paths = ClientHostFiles.removalAdvice();
        List<String> recorded = record.hosts();
        clients.files().keySet().stream().sorted().forEach(host -> {
            List<String> surplus = ClientHostFiles.all(pki, clients.files().get(host));
            if (surplus.isEmpty() && !recorded.contains(host)) {
                return;
            }
            steps.add(Step.on(host, "teardown", "client-files").safety(SafetyClass.NEVER).kind(ChangeKind.DELETE)
                    .summary(surplus.isEmpty() ? "forget " + host + " as a client host (it holds no client files)"
                            : "remove " + String.join(", ", surplus) + " (client files; runs no member)")
                    .reason(surplus.isEmpty() ? "recorded as given client files" : "given by etcdwright; the directory stays")
                    .observed(String.join(" ", surplus))
                    .does(ctx -> {
                        boolean changed = !surplus.isEmpty() && ClientHostFiles.remove(ctx.session(), surplus);
                        // Struck off only once the files are gone: a destroy killed before finds the host again.
                        changed |= record.remove(host);
                        return changed ? Outcome.CHANGED : Outcome.OK;
                    }));
        });
        new java.util.TreeMap<>(clients.unreachable()).forEach((host, why) -> warnings.add("client host " + host
                + " could not be reached (" + why + "): its client files stay there; destroy again once it answers, or run"
                + " " + paths + " there yourself"));
        for (String host : recorded) {
            if (!memberHosts.contains(host) && !clients.files().containsKey(host) && !clients.unreachable().containsKey(host)) {
                warnings.add("client host " + host + " was given client files but is not in the inventory: run "
                        + paths + " there yourself if it still exists");
            }
        }
    }

    /** CHANGED when the command said it removed anything. */
    private static Outcome outcome(String said) {
        return said.isBlank() ? Outcome.OK : Outcome.CHANGED;
    }
}
