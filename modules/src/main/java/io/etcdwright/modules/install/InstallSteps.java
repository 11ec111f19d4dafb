package io.etcdwright.modules.install;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.engine.ssh.Shell;
import io.etcdwright.modules.EtcdLayout;

import java.util.Optional;

/** The install module: the desired etcd release unpacked in its own directory and made active. */
public final class InstallSteps {
    /** push: the workstation copies the tarball; fetch: the host downloads it itself. */
    public enum Source { PUSH, FETCH }

    private InstallSteps() {
    }

    public static Optional<Step.Builder> plan(String host, InstallFacts facts, String version) {
        if (facts.isActive(version) && facts.hasInstalled(version)) {
            return Optional.empty();
        }
        Step.Builder step = Step.on(host, "install", "install").observed(facts.toString());
        if (facts.hasInstalled(version)) {
            return Optional.of(step.kind(ChangeKind.UPDATE).summary("activate etcd " + version)
                    .reason(facts.etcdVersion().map(v -> v + " is active").orElse("links missing")));
        }
        return Optional.of(step.kind(facts.etcdVersion().isPresent() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .summary("install etcd " + version)
                .reason(facts.etcdVersion().map(v -> v + " installed").orElse("not installed")));
    }

    /**
     * Unpacks into a staging directory, checks the binaries run and report the right version,
     * then renames into place: an interrupted install never leaves a half-filled version dir
     * that a later run would mistake for a good one.
     */
    public static Outcome apply(HostSession session, ReleaseArtifact artifact, Source source, ReleaseCache cache,
                                boolean alreadyUnpacked) {
        String version = artifact.version();
        String dir = EtcdLayout.versionDir(version);
        if (!alreadyUnpacked) {
            String tarball = EtcdLayout.INSTALL_ROOT + "/.incoming/" + artifact.fileName();
            if (source == Source.PUSH) {
                ReleaseCache.Verified local = cache.obtain(artifact);
                session.upload(local.file(), local.sha256(), RemoteFile.rootOwned(tarball, "0600"));
            } else {
                session.runScript(fetchScript(artifact, tarball)).orThrow(session.target().name());
            }
            session.runScript(unpackScript(version, tarball, dir)).orThrow(session.target().name());
        }
        session.runScript(activateScript(dir)).orThrow(session.target().name());
        return Outcome.CHANGED;
    }

    private static String fetchScript(ReleaseArtifact artifact, String tarball) {
        String expected = artifact.pinnedSha256().orElse("");
        StringBuilder s = new StringBuilder("set -eu\n")
                .append("t=").append(Shell.quote(tarball)).append("\nmkdir -p \"$(dirname \"$t\")\"\n")
                .append("get() { if command -v curl >/dev/null; then curl -fsSL --retry 3 -o \"$2\" \"$1\"; ")
                .append("elif command -v wget >/dev/null; then wget -q -O \"$2\" \"$1\"; ")
                .append("else echo 'neither curl nor wget is installed: install one, or use artifacts.source: push' >&2; exit 4; fi; }\n")
                .append("get ").append(Shell.quote(artifact.url())).append(" \"$t.part\"\n");
        if (expected.isEmpty()) {
            s.append("get ").append(Shell.quote(artifact.checksumsUrl().orElseThrow())).append(" \"$t.sums\"\n")
                    .append("want=$(awk -v f=").append(Shell.quote(artifact.fileName()))
                    .append(" '$2 == f || $2 == \"*\" f {print $1}' \"$t.sums\")\nrm -f \"$t.sums\"\n")
                    .append("[ -n \"$want\" ] || { echo 'the checksums file lists no ").append(artifact.fileName())
                    .append("' >&2; exit 3; }\n");
        } else {
            s.append("want=").append(expected).append("\n");
        }
        s.append("have=$(sha256sum \"$t.part\" | cut -d' ' -f1)\n")
                .append("if [ \"$have\" != \"$want\" ]; then rm -f \"$t.part\"; echo \"downloaded ")
                .append(artifact.fileName()).append(" has sha256 $have, expected $want: refusing it\" >&2; exit 3; fi\n")
                .append("mv -f \"$t.part\" \"$t\"\n");
        return s.toString();
    }

    private static String unpackScript(String version, String tarball, String dir) {
        return "set -eu\n"
                + "t=" + Shell.quote(tarball) + "; d=" + Shell.quote(dir) + "; s=\"$d.staging\"\n"
                + "rm -rf \"$s\"; mkdir -p \"$s\"\n"
                + "tar -xzf \"$t\" -C \"$s\" --strip-components=1 --no-same-owner\n"
                + "for b in etcd etcdctl; do [ -x \"$s/$b\" ] || { echo \"the release has no $b\" >&2; exit 3; }; done\n"
                + "\"$s/etcd\" --version | grep -q \"etcd Version: " + version + "$\" || { echo \"the etcd binary in the "
                + "release does not report version " + version + "\" >&2; exit 3; }\n"
                + "chmod 0755 \"$s\" \"$s\"/etcd*\n"
                + "rm -rf \"$d\"; mv \"$s\" \"$d\"; rm -f \"$t\"\n";
    }

    private static String activateScript(String dir) {
        StringBuilder s = new StringBuilder("set -eu\nd=" + Shell.quote(dir) + "\n");
        for (String tool : EtcdLayout.TOOLS) {
            String link = EtcdLayout.LINK_DIR + "/" + tool;
            s.append("if [ -x \"$d/").append(tool).append("\" ]; then ln -sfn \"$d/").append(tool).append("\" ")
                    .append(link).append(".etcdwright && mv -Tf ").append(link).append(".etcdwright ").append(link)
                    .append("; else rm -f ").append(link).append("; fi\n");
        }
        return s.toString();
    }
}
