package io.etcdwright.modules.install;

import io.etcdwright.engine.ssh.RemoteCommand;
import io.etcdwright.engine.ssh.LocalHost;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The install scripts take URL, file name, version, digest and directories as arguments only. */
class InstallCommandsTest {
    @TempDir
    Path dir;
    LocalHost host;

    @BeforeEach
    void setUp() throws Exception {
        host = new LocalHost(dir);
    }

    private static String code(RemoteCommand c) {
        return ((RemoteCommand.Script) c).code();
    }

    @Test
    void fetchPassesUrlsFileNameAndDigestAsLiteralArguments() throws Exception {
        ReleaseArtifact benign = new ReleaseArtifact("3.5.16", "amd64", "https://example.org/e.tgz",
                Optional.of("https://example.org/SHA256SUMS"), Optional.empty());
        String benignCode = code(InstallSteps.fetchCommand(benign, "/opt/etcd/.incoming/e.tgz"));
        String pinnedCode = code(InstallSteps.fetchCommand(new ReleaseArtifact("3.5.16", "amd64", "https://example.org/e.tgz",
                Optional.empty(), Optional.of("ab")), "/opt/etcd/.incoming/e.tgz"));
        assertEquals(benignCode, pinnedCode, "one script whether the digest is pinned or read");
        for (String value : host.hostileValues()) {
            ReleaseArtifact artifact = new ReleaseArtifact(value, value, value, Optional.of(value), Optional.empty());
            RemoteCommand c = InstallSteps.fetchCommand(artifact, value);
            assertEquals(benignCode, code(c), "the fetch script is the same text whatever the values");
            host.assertArrivesLiterally(c, List.of(value, value, value, artifact.fileName(), ""));
            if (value.isEmpty()) {
                continue; // an empty pinned digest means none: the checksums file is read, covered above
            }
            ReleaseArtifact pinned = new ReleaseArtifact(value, value, value, Optional.empty(), Optional.of(value));
            host.assertArrivesLiterally(InstallSteps.fetchCommand(pinned, value),
                    List.of(value, value, "", pinned.fileName(), value));
        }
    }

    @Test
    void unpackAndActivatePassVersionAndDirectoriesAsLiteralArguments() throws Exception {
        String unpack = code(InstallSteps.unpackCommand("3.5.16", "/opt/etcd/.incoming/e.tgz", "/opt/etcd/v3.5.16"));
        String activate = code(InstallSteps.activateCommand("/opt/etcd/v3.5.16"));
        for (String value : host.hostileValues()) {
            RemoteCommand u = InstallSteps.unpackCommand(value, value + "t", value + "d");
            assertEquals(unpack, code(u));
            host.assertArrivesLiterally(u, List.of(value + "t", value + "d", value));
            RemoteCommand a = InstallSteps.activateCommand(value);
            assertEquals(activate, code(a));
            host.assertArrivesLiterally(a, List.of(value));
        }
    }

    @Test
    void theRealFetchAndUnpackScriptsHandleAHostileDirectoryAsData() throws Exception {
        // A release whose etcd reports the version, fetched by URL (file://) into a directory
        // whose name is shell syntax, verified by its pinned digest and unpacked.
        Path release = Files.createDirectories(dir.resolve("src/etcd-v3.5.16-linux-amd64"));
        for (String tool : List.of("etcd", "etcdctl")) {
            Path bin = release.resolve(tool);
            Files.writeString(bin, "#!/bin/sh\necho 'etcd Version: 3.5.16'\n");
            bin.toFile().setExecutable(true);
        }
        Path weird = Files.createDirectories(dir.resolve("in $(touch pwned-fetch);'\"`touch pwned-tick` -rf"));
        Path tarball = dir.resolve("src/e.tgz");
        Process tar = new ProcessBuilder("tar", "-czf", tarball.toString(), "-C", dir.resolve("src").toString(),
                "etcd-v3.5.16-linux-amd64").inheritIO().start();
        assertEquals(0, tar.waitFor());
        String sha = io.etcdwright.engine.ssh.HostSession.sha256(Files.readAllBytes(tarball));
        ReleaseArtifact artifact = new ReleaseArtifact("3.5.16", "amd64", tarball.toUri().toString(), Optional.empty(),
                Optional.of(sha));
        String target = weird.resolve("e.tgz").toString();
        LocalHost.Run fetch = host.run(InstallSteps.fetchCommand(artifact, target), new byte[0], false);
        assertEquals(0, fetch.exitCode(), fetch.stderr());
        assertTrue(Files.exists(Path.of(target)));
        String versionDir = weird.resolve("v3.5.16").toString();
        LocalHost.Run unpack = host.run(InstallSteps.unpackCommand("3.5.16", target, versionDir), new byte[0], false);
        assertEquals(0, unpack.exitCode(), unpack.stderr());
        assertTrue(Files.isExecutable(Path.of(versionDir, "etcd")));
        assertTrue(Files.notExists(Path.of(target)), "the tarball is removed once unpacked");
        assertEquals(0, host.run(InstallSteps.fetchCommand(artifact, target), new byte[0], false).exitCode());
        LocalHost.Run wrong = host.run(InstallSteps.unpackCommand("3.5.17", target, versionDir), new byte[0], false);
        assertEquals(3, wrong.exitCode(), wrong.stderr());
        assertTrue(wrong.stderr().contains("does not report version 3.5.17"), wrong.stderr());
        // Without a pinned digest, the checksums file is read for this file name.
        Path sums = Files.writeString(dir.resolve("src/SHA256SUMS"), "0000  other.tar.gz\n" + sha + "  "
                + artifact.fileName() + "\n");
        ReleaseArtifact bySums = new ReleaseArtifact("3.5.16", "amd64", tarball.toUri().toString(),
                Optional.of(sums.toUri().toString()), Optional.empty());
        LocalHost.Run viaSums = host.run(InstallSteps.fetchCommand(bySums, target), new byte[0], false);
        assertEquals(0, viaSums.exitCode(), viaSums.stderr());
        ReleaseArtifact unlisted = new ReleaseArtifact("3.5.99", "amd64", tarball.toUri().toString(),
                Optional.of(sums.toUri().toString()), Optional.empty());
        LocalHost.Run notListed = host.run(InstallSteps.fetchCommand(unlisted, target), new byte[0], false);
        assertEquals(3, notListed.exitCode(), notListed.stderr());
        assertTrue(notListed.stderr().contains("lists no etcd-v3.5.99-linux-amd64.tar.gz"), notListed.stderr());
        ReleaseArtifact tampered = new ReleaseArtifact("3.5.16", "amd64", tarball.toUri().toString(), Optional.empty(),
                Optional.of("0".repeat(64)));
        LocalHost.Run refused = host.run(InstallSteps.fetchCommand(tampered, target), new byte[0], false);
        assertEquals(3, refused.exitCode(), refused.stderr());
        assertTrue(refused.stderr().contains("refusing it"), refused.stderr());
        host.assertNoMarkers();
    }

    /** A release tarball in upstream's layout whose etcd says it is {@code version}. */
    private Path release(String version) throws Exception {
        Path src = Files.createDirectories(dir.resolve("src-" + version));
        Path top = Files.createDirectories(src.resolve("etcd-v" + version + "-linux-amd64"));
        for (String tool : List.of("etcd", "etcdctl")) {
            Path bin = top.resolve(tool);
            Files.writeString(bin, "#!/bin/sh\necho 'etcd Version: " + version + "'\n");
            bin.toFile().setExecutable(true);
        }
        Path tarball = src.resolve("e.tgz");
        Process tar = new ProcessBuilder("tar", "-czf", tarball.toString(), "-C", src.toString(), top.getFileName().toString())
                .inheritIO().start();
        assertEquals(0, tar.waitFor());
        return tarball;
    }

    private static List<String> leftovers(Path parent) throws Exception {
        try (var files = Files.list(parent)) {
            return files.map(f -> f.getFileName().toString()).filter(n -> n.startsWith(".etcdwright-unpack")).toList();
        }
    }

    @Test
    void streamUnpackPassesDirectoryVersionAndDigestAsLiteralArguments() throws Exception {
        String code = code(InstallSteps.streamUnpackCommand("3.5.16", "/opt/etcd/v3.5.16", "ab".repeat(32)));
        for (String value : host.hostileValues()) {
            RemoteCommand c = InstallSteps.streamUnpackCommand(value, value + "d", value + "s");
            assertEquals(code, code(c), "the stream script is the same text whatever the values");
            host.assertArrivesLiterally(c, List.of(value + "d", value, value + "s"));
        }
    }

    @Test
    void aStreamedReleaseIsHashedAndUnpackedInOnePassAndAppearsOnlyWhenGood() throws Exception {
        byte[] good = Files.readAllBytes(release("3.5.16"));
        String sha = io.etcdwright.engine.ssh.HostSession.sha256(good);
        Path parent = Files.createDirectories(dir.resolve("opt $(touch pwned-stream);'\"`touch pwned-tick` -rf"));
        String versionDir = parent.resolve("v3.5.16").toString();
        // A staging directory left by a killed install is cleared by the next one.
        Files.createDirectories(parent.resolve(".etcdwright-unpack.KILLED/tree"));

        LocalHost.Run ok = host.run(InstallSteps.streamUnpackCommand("3.5.16", versionDir, sha), good, false);
        assertEquals(0, ok.exitCode(), ok.stderr());
        assertTrue(Files.isExecutable(Path.of(versionDir, "etcd")));
        assertTrue(Files.isExecutable(Path.of(versionDir, "etcdctl")));
        assertEquals(List.of(), leftovers(parent), "no staging directory is left behind");

        // Damaged on the way: the digest differs; nothing is installed, nothing is left.
        String other = parent.resolve("v3.5.17").toString();
        byte[] damaged = good.clone();
        damaged[damaged.length / 2] ^= 0x5a;
        LocalHost.Run refused = host.run(InstallSteps.streamUnpackCommand("3.5.17", other, sha), damaged, false);
        assertEquals(3, refused.exitCode(), refused.stderr());
        assertTrue(refused.stderr().contains("arrived damaged"), refused.stderr());
        assertTrue(Files.notExists(Path.of(other)));
        assertEquals(List.of(), leftovers(parent));

        // Not a tarball at all, though its digest is the one sent: refused, nothing left.
        byte[] garbage = "not a tarball\n".repeat(10_000).getBytes(java.nio.charset.StandardCharsets.UTF_8);
        LocalHost.Run notTar = host.run(InstallSteps.streamUnpackCommand("3.5.17", other,
                io.etcdwright.engine.ssh.HostSession.sha256(garbage)), garbage, false);
        assertEquals(3, notTar.exitCode(), notTar.stderr());
        assertTrue(notTar.stderr().contains("could not be unpacked"), notTar.stderr());
        assertTrue(Files.notExists(Path.of(other)));
        assertEquals(List.of(), leftovers(parent));

        // A good tarball of another version than the one asked for: refused, the good one stays.
        LocalHost.Run wrong = host.run(InstallSteps.streamUnpackCommand("3.5.17", other, sha), good, false);
        assertEquals(3, wrong.exitCode(), wrong.stderr());
        assertTrue(wrong.stderr().contains("does not report version 3.5.17"), wrong.stderr());
        assertTrue(Files.notExists(Path.of(other)));
        assertTrue(Files.isExecutable(Path.of(versionDir, "etcd")));
        assertEquals(List.of(), leftovers(parent));

        // Again over an existing version dir (a repair): replaced whole.
        Files.delete(Path.of(versionDir, "etcdctl"));
        LocalHost.Run again = host.run(InstallSteps.streamUnpackCommand("3.5.16", versionDir, sha), good, false);
        assertEquals(0, again.exitCode(), again.stderr());
        assertTrue(Files.isExecutable(Path.of(versionDir, "etcdctl")));
        host.assertNoMarkers();
    }
}
