package io.etcdwright.modules.teardown;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.Shell;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.cluster.EtcdHostFacts;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The teardown module: stop and remove what etcdwright put on the hosts. Data directories stay
 * unless the operator passed --wipe-data: deleting a member's data is the one thing here that
 * cannot be undone. The etcd user and group stay too, so files anyone else owns keep an owner.
 */
public final class TeardownPlanner {
    private TeardownPlanner() {
    }

    public static Plan plan(String clusterName, Map<String, EtcdHostFacts> facts, EtcdLayout layout, boolean wipeData) {
        List<Step> steps = new ArrayList<>();
        List<String> warnings = new ArrayList<>();
        for (EtcdHostFacts f : facts.values()) {
            String host = f.host();
            List<String> after = new ArrayList<>();
            boolean unitPresent = f.file(EtcdLayout.UNIT_FILE).exists() || f.service().running() || f.service().enabled();
            if (unitPresent) {
                Step stop = Step.on(host, "teardown", "service").kind(ChangeKind.DELETE)
                        .summary("stop and remove " + EtcdLayout.UNIT)
                        .reason(f.service().running() ? "running" : "installed")
                        .observed(f.service().toString())
                        .does(ctx -> {
                            ctx.session().run("systemctl disable --now " + EtcdLayout.UNIT + " >/dev/null 2>&1; rm -f "
                                    + EtcdLayout.UNIT_FILE + " && systemctl daemon-reload && systemctl reset-failed "
                                    + EtcdLayout.UNIT + " 2>/dev/null; true").orThrow(host);
                            return Outcome.CHANGED;
                        });
                steps.add(stop);
                after.add(stop.id());
            }
            boolean configPresent = f.setup().dirs().containsKey(EtcdLayout.CONFIG_DIR);
            if (configPresent) {
                steps.add(Step.on(host, "teardown", "config").kind(ChangeKind.DELETE)
                        .summary("remove " + EtcdLayout.CONFIG_DIR + " (config and certificates)").reason("present")
                        .after(after).does(ctx -> {
                            ctx.session().run("rm -rf " + EtcdLayout.CONFIG_DIR).orThrow(host);
                            return Outcome.CHANGED;
                        }));
            }
            boolean binariesPresent = !f.install().installedVersions().isEmpty() || f.install().etcdVersion().isPresent();
            if (binariesPresent) {
                StringBuilder rm = new StringBuilder("rm -rf " + EtcdLayout.INSTALL_ROOT);
                for (String tool : EtcdLayout.TOOLS) {
                    rm.append(" ").append(EtcdLayout.LINK_DIR).append('/').append(tool);
                }
                steps.add(Step.on(host, "teardown", "binaries").kind(ChangeKind.DELETE)
                        .summary("remove etcd binaries").reason("installed: " + String.join(", ", f.install().installedVersions()))
                        .after(after).does(ctx -> {
                            ctx.session().run(rm.toString()).orThrow(host);
                            return Outcome.CHANGED;
                        }));
            }
            if (f.member().dataDirExists()) {
                if (wipeData) {
                    steps.add(Step.on(host, "teardown", "data").kind(ChangeKind.DELETE)
                            .summary("DELETE data dir " + layout.dataDir())
                            .reason("--wipe-data" + (f.member().hasMemberData() ? "; it holds member data" : ""))
                            .after(after).does(ctx -> {
                                ctx.session().run("rm -rf " + Shell.quote(layout.dataDir())).orThrow(host);
                                return Outcome.CHANGED;
                            }));
                } else if (f.member().hasMemberData()) {
                    warnings.add(host + ": data dir " + layout.dataDir() + " is kept (it holds member data); "
                            + "pass --wipe-data to delete it");
                }
            }
        }
        return new Plan(clusterName, steps, List.of(), warnings);
    }
}
