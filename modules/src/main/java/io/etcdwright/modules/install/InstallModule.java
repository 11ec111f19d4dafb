package io.etcdwright.modules.install;

import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.spec.ClusterSpec;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;

import java.util.Optional;

/** The spec's etcd release, unpacked in its own directory and made the active one. */
public final class InstallModule implements MemberModule {
    private final ReleaseCache releases;

    public InstallModule(ReleaseCache releases) {
        this.releases = releases;
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        ClusterSpec spec = member.spec();
        String version = spec.etcd().version();
        InstallFacts have = member.facts().install();
        Optional<Step.Builder> step = InstallSteps.plan(member.host(), have, version);
        if (step.isEmpty()) {
            return Optional.empty();
        }
        ReleaseArtifact artifact = ReleaseArtifact.of(version, member.facts().system().architecture(),
                spec.artifacts().urlTemplate(), spec.artifacts().checksumsUrlTemplate(),
                Optional.ofNullable(spec.artifacts().sha256().get(version)));
        InstallSteps.Source source = spec.artifacts().source().name().equals("FETCH") ? InstallSteps.Source.FETCH
                : InstallSteps.Source.PUSH;
        boolean unpacked = have.hasInstalled(version);
        // The unit runs the versioned binary (/opt/etcd/vX.Y.Z/etcd), so etcd needs a restart only
        // for another version, not when the links of the version it runs are put right: the version
        // it answers on when it runs (the links may have moved without it: an online downgrade
        // unpacks and activates the older release on every host before their swaps; an interrupted apply may
        // have activated another release while etcd still runs this one), else the links'.
        Optional<String> runs = member.facts().member().status().map(s -> s.version()).filter(v -> !v.isEmpty())
                .or(have::etcdVersion);
        boolean otherVersion = runs.filter(version::equals).isEmpty();
        return Optional.of(new Change(step.get(), ctx -> InstallSteps.apply(ctx, artifact, source, releases, unpacked),
                otherVersion ? Optional.of("binary changed") : Optional.empty(),
                // Needs the host set up, nothing else: the 22 MB stream is the longest step of a
                // create, so certificates, config and unit are written while it runs.
                Placement.BESIDE_CHAIN));
    }
}
