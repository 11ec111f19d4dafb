package io.etcdwright.modules.install;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.Minor;
import io.etcdwright.engine.spec.Version;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Releases a version change left behind, removed by a later apply once the cluster has settled on
 * the spec's version (never during a change: the old binary is what a rollback starts). Kept: the
 * active release, and the newest other release of each minor, which is the way back for a patch
 * rollback and the restore tool for that minor's backups. Everything older goes.
 */
public final class ReleaseCleanupModule implements MemberModule {
    private final boolean settled;

    /** @param settled whether every member runs the spec's version and no version change is planned */
    public ReleaseCleanupModule(boolean settled) {
        this.settled = settled;
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        InstallFacts have = member.facts().install();
        String active = member.spec().etcd().version();
        if (!settled || !have.isActive(active)) {
            return Optional.empty();
        }
        List<String> removable = removable(have.installedVersions(), active);
        if (removable.isEmpty()) {
            return Optional.empty();
        }
        List<String> kept = new ArrayList<>(have.installedVersions());
        kept.removeAll(removable);
        // Only once the version is settled everywhere, and never the active release or the newest other of
        // a minor: the host's releases put back to what etcdwright keeps, without touching membership or data.
        Step.Builder step = Step.on(member.host(), "install", "release-cleanup").kind(ChangeKind.DELETE)
                .safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE)
                .summary("remove older etcd " + String.join(", ", removable) + " from " + EtcdLayout.INSTALL_ROOT)
                .reason("the cluster runs " + active + "; kept: " + String.join(", ", kept)
                        + " (the active release and the newest other of each minor)")
                .observed(String.join(",", have.installedVersions()));
        List<String> dirs = removable.stream().map(EtcdLayout::versionDir).toList();
        return Optional.of(new Change(step, ctx -> {
            String out = ctx.session().run(RemoteCommand.script(REMOVE, dirs)).orThrow(member.host()).stdout();
            return out.contains(REMOVED) ? Outcome.CHANGED : Outcome.OK;
        }, Optional.empty(), Placement.BESIDE_CHAIN));
    }

    /** Everything but the active release and the newest other release of each minor, oldest first. */
    static List<String> removable(List<String> installed, String active) {
        Map<Minor, Version> newestOfMinor = new LinkedHashMap<>();
        List<Version> versions = installed.stream().flatMap(v -> Version.tryParse(v).stream())
                .sorted(Comparator.naturalOrder()).toList();
        for (Version v : versions) {
            if (!v.toString().equals(active)) {
                newestOfMinor.put(v.minorLine(), v);
            }
        }
        return versions.stream().filter(v -> !v.toString().equals(active) && !newestOfMinor.containsValue(v))
                .map(Version::toString).toList();
    }

    private static final String REMOVED = "etcdwright:removed";

    /**
     * Each argument is a version directory; one is removed only when it is what etcdwright installs
     * there (a vX.Y.Z directory right under the install root with an etcd binary) and not what the
     * etcd link points into.
     */
    private static final String REMOVE = "set -eu\n"
            + "active=$(readlink " + EtcdLayout.LINK_DIR + "/etcd || true)\n"
            + "for d in \"$@\"; do\n"
            + "  case $d in " + EtcdLayout.INSTALL_ROOT + "/v[0-9]*.[0-9]*.[0-9]*) ;; *) echo \"not a release dir: $d\" >&2; exit 1 ;; esac\n"
            + "  case $d in */*/*/*/*) echo \"not a release dir: $d\" >&2; exit 1 ;; esac\n"
            + "  [ -d \"$d\" ] || continue\n"
            + "  [ -x \"$d/etcd\" ] || { echo \"$d has no etcd binary: left alone\" >&2; continue; }\n"
            + "  [ \"$active\" = \"$d/etcd\" ] && { echo \"$d is active: left alone\" >&2; continue; }\n"
            + "  rm -rf -- \"$d\"\n"
            + "  echo '" + REMOVED + "'\n"
            + "done\n";
}
