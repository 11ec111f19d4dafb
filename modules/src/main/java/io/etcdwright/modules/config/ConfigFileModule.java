package io.etcdwright.modules.config;

import io.etcdwright.engine.facts.FileState;
import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.modules.EtcdLayout;
import io.etcdwright.modules.MemberContext;
import io.etcdwright.modules.MemberModule;
import io.etcdwright.modules.catalogue.VersionCatalogue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** etcd's config file: the member's identity, URLs, bootstrap settings and the spec's settings. */
public final class ConfigFileModule implements MemberModule {
    private static final RemoteFile FILE = RemoteFile.rootOwned(EtcdLayout.CONFIG_FILE, "0644");

    /**
     * The file as the spec wants it for this member, read by the release its unit runs: the spec's
     * version (a hop's, while one is planned), whose binary the member starts at its next restart.
     */
    public static String desired(MemberContext member) {
        return rendered(member, true);
    }

    private static String rendered(MemberContext member, boolean defaults) {
        MemberContext.Bootstrap bootstrap = member.bootstrap();
        return EtcdConfigFile.render(new EtcdConfigFile.Peer(member.member().name(), member.member().address()),
                bootstrap.initialCluster(), bootstrap.joining() ? "existing" : "new", bootstrap.token(), member.layout(),
                member.spec().etcd().ports().metrics().orElse(0), member.spec().etcd().parsedVersion(),
                member.spec().etcd().settings(), defaults);
    }

    /**
     * Why the content differs: etcdwright's defaults by their reason when they are all that is new
     * (a member an older etcdwright configured, nothing in the spec changed), else "content differs".
     */
    private static String contentReason(MemberContext member, FileState have, boolean ignoreBootstrap) {
        List<String> defaults = VersionCatalogue.builtIn().configFor(member.spec().etcd().parsedVersion(),
                member.spec().etcd().settings()).defaults();
        String before = defaults.isEmpty() ? "" : rendered(member, false);
        boolean onlyDefaults = !defaults.isEmpty() && have.content().map(content -> content.equals(before)
                || ignoreBootstrap && EtcdConfigFile.sameIgnoringBootstrap(content, before)).orElse(false);
        return onlyDefaults ? String.join("; ", defaults) : "content differs";
    }

    /** A member with data ignores the initial-cluster settings: its WAL holds the membership. */
    static boolean hasData(MemberContext member) {
        return !member.bootstrap().joining() && member.facts().member().hasMemberData();
    }

    /** Whether {@code content} serves as {@code want} for this member: the same, or differing only where it is ignored. */
    static boolean serves(MemberContext member, String content, String want) {
        return content.equals(want) || hasData(member) && EtcdConfigFile.sameIgnoringBootstrap(content, want);
    }

    @Override
    public Optional<Change> plan(MemberContext member) {
        String want = desired(member);
        FileState have = member.facts().file(EtcdLayout.CONFIG_FILE);
        // A member with data ignores the initial-cluster settings (its WAL holds the membership):
        // a file that differs only there is left as it is, and nothing restarts for it.
        boolean hasData = hasData(member);
        boolean onlyBootstrapDiffers = hasData
                && have.content().map(content -> EtcdConfigFile.sameIgnoringBootstrap(content, want)).orElse(false);
        boolean contentRight = have.hasContent(want) || onlyBootstrapDiffers;
        boolean attributesRight = have.hasAttributes("644", "root", "root");
        if (contentRight && attributesRight) {
            return Optional.empty();
        }
        // The bootstrap-only difference is kept as it is on the host when only the mode is fixed.
        byte[] content = (contentRight ? have.content().orElse(want) : want).getBytes(StandardCharsets.UTF_8);
        Step.Builder step = Step.on(member.host(), "config", "config-file")
                .kind(have.exists() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .safety(io.etcdwright.modules.FileSafety.ofRewrite(member, have, contentRight))
                .summary("write " + EtcdLayout.CONFIG_FILE)
                .reason(!have.exists() ? "missing" : contentRight ? "mode/owner differ" : contentReason(member, have, hasData))
                .observed(have.sha256() + " " + have.mode() + " " + have.owner() + ":" + have.group())
                .diff(contentRight ? null : new FileDiff(EtcdLayout.CONFIG_FILE, have.content().orElse(""), want));
        // The process runs the file on disk: keep a copy of it before the first rewrite (RunningConfig).
        boolean keepRunning = !contentRight && RunningConfig.runsTheFileOnDisk(member.facts());
        // A change undone before its restart: the process already runs what is written back.
        boolean runsIt = !contentRight && RunningConfig.startedFromDesired(member);
        if (runsIt) {
            step.reason(contentReason(member, have, hasData) + "; etcd already runs this config (started from it before"
                    + " an unfinished change rewrote the file), so it is written back without a restart");
        }
        return Optional.of(new Change(step, ctx -> {
            if (keepRunning) {
                ctx.session().run(RemoteCommand.exec("cp", "--", EtcdLayout.CONFIG_FILE, EtcdLayout.RUNNING_CONFIG_FILE))
                        .orThrow(member.host());
            }
            return ctx.session().sync(content, FILE) ? Outcome.CHANGED : Outcome.OK;
        }, contentRight || runsIt ? Optional.empty() : Optional.of("config changed")));
    }
}
