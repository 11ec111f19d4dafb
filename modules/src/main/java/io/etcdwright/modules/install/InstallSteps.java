package io.etcdwright.modules.install;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Progress;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import io.etcdwright.engine.ssh.CountingInputStream;
import io.etcdwright.engine.ssh.HostSession;
import io.etcdwright.engine.ssh.RemoteFile;
import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.modules.EtcdLayout;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
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
            // The links put back for the release the host's etcd is already: nothing else changes (routine).
            // Another release active: the spec names another version than the host runs (a change).
            boolean sameRelease = facts.etcdVersion().filter(version::equals).isPresent();
            return Optional.of(step.kind(ChangeKind.UPDATE).summary("activate etcd " + version)
                    .safety(sameRelease ? io.etcdwright.engine.plan.SafetyClass.ROUTINE : io.etcdwright.engine.plan.SafetyClass.CHANGE)
                    .reason(facts.etcdVersion().filter(v -> !v.equals(version)).map(v -> v + " is active")
                            .orElse("links missing or not pointing at it")));
        }
        // A release the host does not hold: a version the spec asks for, or a host becoming a member.
        return Optional.of(step.kind(facts.etcdVersion().isPresent() ? ChangeKind.UPDATE : ChangeKind.CREATE)
                .safety(io.etcdwright.engine.plan.SafetyClass.CHANGE)
                .summary("install etcd " + version)
                .reason(facts.etcdVersion().map(v -> v + " installed").orElse("not installed")));
    }

    /**
     * Installs and activates. Pushed releases are streamed once: one SSH channel whose stdin is
     * the tarball, hashed and unpacked as it arrives, checked, then renamed into place (see
     * {@link #STREAM_UNPACK}). Fetched releases are downloaded and verified on the host, then
     * unpacked. Either way the binaries are checked to run and report the right version before
     * the version directory appears: an interrupted install never leaves a half-filled version
     * dir that a later run would mistake for a good one. Reports OK when the release was already
     * unpacked and every link already pointed at it (an earlier, interrupted apply did the work).
     */
    public static Outcome apply(StepContext ctx, ReleaseArtifact artifact, Source source, ReleaseCache cache,
                                boolean alreadyUnpacked) {
        HostSession session = ctx.session();
        String version = artifact.version();
        String dir = EtcdLayout.versionDir(version);
        String host = session.target().name();
        if (!alreadyUnpacked) {
            if (source == Source.PUSH) {
                ReleaseCache.Verified local = cache.obtain(artifact, ctx::transfer);
                try (Progress sent = ctx.transfer("upload " + artifact.fileName(), Files.size(local.file()));
                     InputStream in = new CountingInputStream(Files.newInputStream(local.file()), sent::advanced)) {
                    session.run(streamUnpackCommand(version, dir, local.sha256()), in).orThrow(host);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read " + local.file() + ": " + e.getMessage(), e);
                }
            } else {
                String tarball = EtcdLayout.INSTALL_ROOT + "/.incoming/" + artifact.fileName();
                // The host downloads it itself: how far it has got is not seen from here, how long it takes is.
                try (Progress waiting = ctx.waiting("the host to download " + artifact.fileName())) {
                    waiting.waitingOn(artifact.url());
                    session.run(fetchCommand(artifact, tarball)).orThrow(host);
                }
                session.run(unpackCommand(version, tarball, dir)).orThrow(host);
            }
        }
        boolean linksChanged = session.run(activateCommand(dir)).orThrow(host).stdout().contains(LINK_CHANGED);
        return alreadyUnpacked && !linksChanged ? Outcome.OK : Outcome.CHANGED;
    }

    /**
     * $1 the version directory, $2 the version the binary must report, $3 the sha256 the stream
     * must have; the tarball is stdin. tee feeds it to sha256sum (through a fifo) and to tar at
     * once, so it crosses the network once and is never stored whole on the host. The tree is
     * unpacked into a private staging directory beside the version directory, and moved there
     * only once the digest matches and the binary reports the version; on any failure the staging
     * directory is removed (and one left by a killed install is removed by the next).
     */
    static final String STREAM_UNPACK = """
            set -eu
            d=$1 version=$2 want=$3
            parent=$(dirname -- "$d")
            mkdir -p -- "$parent"
            rm -rf -- "$parent"/.etcdwright-unpack.*
            s=$(mktemp -d -- "$parent/.etcdwright-unpack.XXXXXX")
            trap 'rm -rf -- "$s"' EXIT
            mkfifo -- "$s/stream"
            mkdir -- "$s/tree"
            sha256sum < "$s/stream" > "$s/sum" &
            hashing=$!
            # tar may stop before the end (a damaged stream, or the padding after the archive):
            # what it leaves is read too, so the digest is always of the whole stream.
            tee -- "$s/stream" | { tar -xzf - -C "$s/tree" --strip-components=1 --no-same-owner && r=0 || r=$?
              echo "$r" > "$s/tar"; cat > /dev/null; }
            wait "$hashing"
            unpacked=$(cat -- "$s/tar")
            have=$(cut -d' ' -f1 < "$s/sum")
            if [ "$have" != "$want" ]; then
              printf 'the release tarball arrived damaged (sha256 %s, sent %s): nothing was installed\n' "$have" "$want" >&2; exit 3
            fi
            [ "$unpacked" -eq 0 ] || { echo "the release tarball could not be unpacked (tar exit $unpacked): nothing was installed" >&2; exit 3; }
            for b in etcd etcdctl; do [ -x "$s/tree/$b" ] || { echo "the release has no $b" >&2; exit 3; }; done
            reported=$("$s/tree/etcd" --version | sed -n 's/^etcd Version: //p')
            [ "$reported" = "$version" ] || { printf 'the etcd binary in the release does not report version %s (it says %s)\n' "$version" "$reported" >&2; exit 3; }
            chmod -- 0755 "$s/tree" "$s/tree"/etcd*
            rm -rf -- "$d"; mv -- "$s/tree" "$d"
            """;

    static RemoteCommand streamUnpackCommand(String version, String dir, String sha256) {
        return RemoteCommand.script(STREAM_UNPACK, dir, version, sha256);
    }

    /**
     * $1 the tarball's path, $2 its URL, $3 the checksums file's URL (empty when a sha256 is
     * pinned), $4 the tarball's file name as the checksums file lists it, $5 the pinned sha256
     * (empty when the checksums file is to be read).
     */
    private static final String FETCH = """
            set -eu
            t=$1 url=$2 sums_url=$3 file=$4 want=$5
            mkdir -p -- "$(dirname -- "$t")"
            get() { if command -v curl >/dev/null; then curl -fsSL --retry 3 -o "$2" -- "$1"; \
            elif command -v wget >/dev/null; then wget -q -O "$2" -- "$1"; \
            else echo 'neither curl nor wget is installed: install one, or use artifacts.source: push' >&2; exit 4; fi; }
            get "$url" "$t.part"
            if [ -z "$want" ]; then
              get "$sums_url" "$t.sums"
              want=$(F=$file awk '$2 == ENVIRON["F"] || $2 == "*" ENVIRON["F"] {print $1}' < "$t.sums")
              rm -f -- "$t.sums"
              [ -n "$want" ] || { printf 'the checksums file lists no %s\n' "$file" >&2; exit 3; }
            fi
            have=$(sha256sum < "$t.part" | cut -d' ' -f1)
            if [ "$have" != "$want" ]; then
              rm -f -- "$t.part"
              printf 'downloaded %s has sha256 %s, expected %s: refusing it\n' "$file" "$have" "$want" >&2; exit 3
            fi
            mv -f -- "$t.part" "$t"
            """;

    static RemoteCommand fetchCommand(ReleaseArtifact artifact, String tarball) {
        String pinned = artifact.pinnedSha256().orElse("");
        String sumsUrl = pinned.isEmpty() ? artifact.checksumsUrl().orElseThrow() : "";
        return RemoteCommand.script(FETCH, tarball, artifact.url(), sumsUrl, artifact.fileName(), pinned);
    }

    /** $1 the tarball, $2 the version directory, $3 the version the binary must report. */
    private static final String UNPACK = """
            set -eu
            t=$1 d=$2 version=$3 s="$2.staging"
            rm -rf -- "$s"; mkdir -p -- "$s"
            tar -xzf "$t" -C "$s" --strip-components=1 --no-same-owner
            for b in etcd etcdctl; do [ -x "$s/$b" ] || { echo "the release has no $b" >&2; exit 3; }; done
            reported=$("$s/etcd" --version | sed -n 's/^etcd Version: //p')
            [ "$reported" = "$version" ] || { printf 'the etcd binary in the release does not report version %s (it says %s)\n' "$version" "$reported" >&2; exit 3; }
            chmod -- 0755 "$s" "$s"/etcd*
            rm -rf -- "$d"; mv -- "$s" "$d"; rm -f -- "$t"
            """;

    static RemoteCommand unpackCommand(String version, String tarball, String dir) {
        return RemoteCommand.script(UNPACK, tarball, dir, version);
    }

    /** What the activation prints when it replaced or removed a link. */
    static final String LINK_CHANGED = "link changed";

    /**
     * $1 the version directory to make active. Links are replaced by rename: never missing. A
     * link that already points at the right binary is left alone, and says so.
     */
    private static final String ACTIVATE = "set -eu\n"
            + "d=$1\n"
            + "for tool in " + String.join(" ", EtcdLayout.TOOLS) + "; do\n"
            + "  link=" + EtcdLayout.LINK_DIR + "/$tool\n"
            + "  if [ -x \"$d/$tool\" ]; then\n"
            + "    [ -L \"$link\" ] && [ \"$(readlink -- \"$link\")\" = \"$d/$tool\" ] && continue\n"
            + "    ln -sfn -- \"$d/$tool\" \"$link.etcdwright\" && mv -Tf -- \"$link.etcdwright\" \"$link\"\n"
            + "  elif [ -e \"$link\" ] || [ -L \"$link\" ]; then rm -f -- \"$link\"\n"
            + "  else continue; fi\n"
            + "  echo '" + LINK_CHANGED + "'\n"
            + "done\n";

    static RemoteCommand activateCommand(String dir) {
        return RemoteCommand.script(ACTIVATE, dir);
    }
}
