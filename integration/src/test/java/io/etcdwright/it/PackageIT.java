package io.etcdwright.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The release artifacts of scripts/package (target/release) on a host that has no Java, used as a CI
 * runner uses them: h1 installs the Debian package with apt-get (no network but the test net), then
 * runs {@code etcdwright version}, {@code validate} and {@code plan} against the cluster on h2..h4,
 * with the workstation's inventory, SSH key, known_hosts and cluster directory copied to the same
 * paths; every output is the workstation's, byte for byte (a no-op plan and one with changes).
 * The class-data-sharing archive is not in the package (it would make two builds differ): postinst
 * makes it, the launcher maps etcdwright's own classes from it, and without a usable one (absent,
 * unreadable, not for this install) the launcher prints exactly what it prints with it.
 * {@code dpkg -r}, and {@code dpkg --purge} of another install, then leave the file system as it was,
 * the generated archive included. The tarball, unpacked in /opt, does the same without an archive
 * until its bin/etcdwright-cds makes one. Startup of {@code version} with and without the archive
 * and from bin/etcdwright is printed, not asserted (speed is measured in bench/package).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackageIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(4); // h1 the CI runner, h2..h4 the cluster
    static final Path RELEASE = Testbed.ROOT.resolve("target/release");
    static final String INV = Testbed.INVENTORY.toString();
    static final int RUNNER = 1;
    /** Everything but the system's own state, logs and the test's files: what a package may leave behind. */
    static final String ARCHIVE = "/usr/lib/etcdwright/lib/etcdwright.jsa";
    static final String FILES_ON_THE_RUNNER = "find / -xdev \\( -path /proc -o -path /sys -o -path /dev -o -path /run"
            + " -o -path /tmp -o -path /var/tmp -o -path /var/log -o -path /var/cache -o -path /var/lib/apt"
            + " -o -path /var/lib/dpkg -o -path /var/lib/systemd -o -path /root -o -path /work \\) -prune -o -print | sort";
    static Path work;
    static Path deb;
    static Path tarball;
    static String spec;
    static String changed;
    static String version;
    /** Other JVMs' archives on the runner: the workstation's JDKs' default ones (the first is the JDK the runtime is from). */
    static final List<String> OTHER_ARCHIVES = new ArrayList<>();

    @BeforeAll
    static void setUp() throws Exception {
        deb = only("*.deb");
        tarball = only("*.tar.gz");
        Testbed.Result sums = Testbed.exec(List.of("sh", "-c", "cd '" + RELEASE + "' && sha256sum --check --strict SHA256SUMS"));
        assertEquals(0, sums.exitCode(), "the artifacts are not those SHA256SUMS names: " + sums.stdout() + sums.stderr());

        work = Testbed.scratch("package");
        String release = Testbed.releaseServer();
        String base = """
                cluster: {name: shipped}
                members: {hosts: [h2, h3, h4]}
                etcd:
                  version: 3.5.16
                  settings: {heartbeat-interval: 100, election-timeout: 1000}
                artifacts:
                  url: %sv{version}/etcd-v{version}-linux-{arch}.tar.gz
                  checksumsUrl: %sv{version}/SHA256SUMS
                """.formatted(release, release);
        spec = Files.writeString(work.resolve("cluster.yaml"), base).toString();
        // Drift for the plan to show: every member's config and a rolling restart.
        changed = Files.writeString(work.resolve("changed.yaml"), base.replace("heartbeat-interval: 100", "heartbeat-interval: 150"))
                .toString();
        Cli.Run create = Cli.run("apply", "-i", INV, "-f", spec, "--yes");
        assertEquals(0, create.exitCode(), create.all());
        version = Cli.run("version").out();

        // The runner gets what a CI job would check out or be given, at the paths the workstation uses,
        // so every output can be compared as it is: inventory and known_hosts, the SSH key, the specs,
        // and the cluster's directory of $ETCDWRIGHT_HOME (its CA and admin client certificate).
        Path home = HOSTS.home();
        Testbed.ssh(RUNNER, "mkdir -p " + String.join(" ", Testbed.INVENTORY.getParent().toString(),
                Testbed.KEY.getParent().toString(), work.toString(), home.resolve("clusters").toString()));
        copy(Testbed.INVENTORY, Testbed.INVENTORY);
        copy(Testbed.KNOWN_HOSTS, Testbed.KNOWN_HOSTS);
        copy(Testbed.KEY, Testbed.KEY);
        copy(work.resolve("cluster.yaml"), work.resolve("cluster.yaml"));
        copy(work.resolve("changed.yaml"), work.resolve("changed.yaml"));
        copy(home.resolve("clusters/shipped"), home.resolve("clusters"));
        Testbed.ssh(RUNNER, "mkdir -p /root/artifacts");
        copy(deb, Path.of("/root/artifacts"));
        copy(tarball, Path.of("/root/artifacts"));
        // Archives made by other JVMs for other class paths, for the launcher to ignore: the default archive of
        // the JDK that scripts/package ran jlink from (the same JVM build as the runtime's), and those of any
        // other JDK installed here (another version's).
        Testbed.Result found = Testbed.exec(List.of("bash", "-c", "{ echo \"$(dirname \"$(dirname \"$(readlink -f \"$(command -v jlink)\")\")\")\";"
                + " ls -d /usr/lib/jvm/*/; } | xargs -I{} readlink -f {}/lib/server/classes.jsa | awk '!seen[$0]++' | xargs ls 2>/dev/null || true"));
        for (String jsa : found.stdout().strip().lines().toList()) {
            String on = "/root/artifacts/other-" + OTHER_ARCHIVES.size() + ".jsa";
            copy(Path.of(jsa), Path.of(on));
            OTHER_ARCHIVES.add(on);
        }
        assertTrue(!OTHER_ARCHIVES.isEmpty(), "no JDK's default class-data-sharing archive on the workstation: " + found);
    }

    @Test
    @Order(1)
    void thePackageInstallsOnAHostWithoutJavaPlansAsTheWorkstationAndLeavesNothingWhenRemoved() {
        assertEquals(1, Testbed.sshStatus(RUNNER, "command -v java || test -e /usr/lib/jvm"), "the runner must have no Java");
        String before = Testbed.ssh(RUNNER, FILES_ON_THE_RUNNER);

        Testbed.ssh(RUNNER, "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /root/artifacts/"
                + deb.getFileName() + " 2>&1");
        assertEquals("ii", Testbed.ssh(RUNNER, "dpkg-query -W -f='${db:Status-Abbrev}' etcdwright").strip());
        assertEquals("/usr/lib/etcdwright/bin/etcdwright", Testbed.ssh(RUNNER, "readlink -f \"$(command -v etcdwright)\"").strip());
        // Made by postinst on this host, and not one of the package's files.
        assertEquals(0, Testbed.sshStatus(RUNNER, "test -s " + ARCHIVE), "postinst made no " + ARCHIVE);
        assertEquals("", Testbed.ssh(RUNNER, "dpkg -L etcdwright | grep 'etcdwright\\.jsa' || true").strip(),
                "the package ships a class-data-sharing archive");
        sameAsTheWorkstation("etcdwright", true);
        quietWithoutAUsableArchive("etcdwright", ARCHIVE);

        // Installed where Debian looks for them, and working there.
        Testbed.ssh(RUNNER, "test -s /usr/share/man/man1/etcdwright.1.gz && test -s /usr/share/zsh/vendor-completions/_etcdwright"
                + " && test -s /usr/share/doc/etcdwright/copyright && test -s /usr/share/doc/etcdwright/etcdwright.cdx.json");
        assertTrue(Testbed.ssh(RUNNER, "bash -c 'source /usr/share/bash-completion/completions/etcdwright && complete -p etcdwright'")
                .contains("_complete_etcdwright"));
        startupBesideTheLauncher();

        Testbed.ssh(RUNNER, "dpkg -r etcdwright 2>&1");
        assertEquals("", Testbed.ssh(RUNNER, "dpkg-query -W -f='${db:Status-Abbrev}' etcdwright 2>/dev/null | grep -v '^un' || true").strip(),
                "dpkg still knows etcdwright after dpkg -r (conffiles left?)");
        String after = Testbed.ssh(RUNNER, FILES_ON_THE_RUNNER);
        assertEquals(before, after, "dpkg -r left the file system otherwise than before the install");

        // A purge removes what postinst generated too.
        Testbed.ssh(RUNNER, "DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends /root/artifacts/"
                + deb.getFileName() + " 2>&1");
        assertEquals(0, Testbed.sshStatus(RUNNER, "test -s " + ARCHIVE), "postinst made no " + ARCHIVE);
        Testbed.ssh(RUNNER, "dpkg --purge etcdwright 2>&1");
        assertEquals(before, Testbed.ssh(RUNNER, FILES_ON_THE_RUNNER), "dpkg --purge left the file system otherwise than before the install");
    }

    @Test
    @Order(2)
    void theTarballUnpackedInOptDoesTheSame() {
        String dir = "/opt/" + tarball.getFileName().toString().replace(".tar.gz", "");
        String archive = dir + "/lib/etcdwright.jsa";
        Testbed.ssh(RUNNER, "tar -xzf /root/artifacts/" + tarball.getFileName() + " -C /opt");
        try {
            assertEquals(1, Testbed.sshStatus(RUNNER, "test -e " + archive), "the tarball ships a class-data-sharing archive");
            sameAsTheWorkstation(dir + "/bin/etcdwright", false);
            Testbed.ssh(RUNNER, "test -s " + dir + "/share/man/man1/etcdwright.1 && test -s " + dir
                    + "/share/doc/etcdwright/THIRD-PARTY-NOTICES");

            // The documented first-run step: refused, with the reason, to a user who cannot write the
            // install (nothing left behind), made by one who can.
            String refused = Testbed.ssh(RUNNER, "runuser -u nobody -- " + dir + "/bin/etcdwright-cds 2>&1; echo \"exit $?\"; ls "
                    + dir + "/lib");
            assertTrue(refused.startsWith("etcdwright-cds: cannot write " + dir + "/lib") && refused.contains("exit 1\n"), refused);
            assertEquals("etcdwright.classlist\netcdwright.jar\n", refused.substring(refused.indexOf("exit 1\n") + 7), refused);
            String made = Testbed.ssh(RUNNER, dir + "/bin/etcdwright-cds");
            assertTrue(made.startsWith("etcdwright-cds: made " + archive), made);
            archiveUsed(dir + "/bin/etcdwright");
            quietWithoutAUsableArchive(dir + "/bin/etcdwright", archive);
        } finally {
            Testbed.ssh(RUNNER, "rm -rf " + dir);
        }
    }

    /**
     * version, validate, a no-op plan and a plan with changes, run on the runner: the workstation's output
     * each, with the install's class-data-sharing archive in use when {@code withArchive}.
     */
    private static void sameAsTheWorkstation(String etcdwright, boolean withArchive) {
        String env = "ETCDWRIGHT_HOME=" + HOSTS.home() + " ";
        // stderr too: the launcher says nothing about the archive, there or not.
        assertEquals(version, Testbed.ssh(RUNNER, env + etcdwright + " version 2>&1"),
                "etcdwright version on the runner: target/release is not from this build? (run scripts/package)");
        if (withArchive) {
            archiveUsed(etcdwright);
        }

        Cli.Run validate = Cli.run("validate", "-i", INV, "-f", spec);
        assertEquals(0, validate.exitCode(), validate.all());
        assertEquals(validate.out(), Testbed.ssh(RUNNER, env + etcdwright + " validate -i " + INV + " -f " + spec));

        Cli.Run noop = Cli.run("plan", "-i", INV, "-f", spec, "--detailed-exitcode");
        assertEquals(0, noop.exitCode(), noop.all());
        assertEquals(withoutLiveMeasurements(noop.out()), withoutLiveMeasurements(
                Testbed.ssh(RUNNER, env + etcdwright + " plan -i " + INV + " -f " + spec + " --detailed-exitcode")));

        Cli.Run drift = Cli.run("plan", "-i", INV, "-f", changed, "--detailed-exitcode");
        assertEquals(2, drift.exitCode(), drift.all());
        assertTrue(drift.out().contains("restart etcd"), drift.out());
        String onRunner = Testbed.ssh(RUNNER, env + etcdwright + " plan -i " + INV + " -f " + changed
                + " --detailed-exitcode > /root/plan.txt; echo \"exit $?\"; cat /root/plan.txt");
        assertEquals("exit 2\n" + withoutLiveMeasurements(drift.out()), withoutLiveMeasurements(onRunner),
                "the runner's plan with changes");
    }

    /**
     * The archive maps (-Xshare:on makes the JVM fail when it does not), and the launcher maps etcdwright's own
     * classes from it: the runtime's default archive has the JDK's classes only.
     */
    private static void archiveUsed(String etcdwright) {
        Testbed.ssh(RUNNER, "ETCDWRIGHT_JAVA_OPTS=-Xshare:on " + etcdwright + " --version");
        String loaded = Testbed.ssh(RUNNER, "ETCDWRIGHT_JAVA_OPTS=-Xlog:class+load " + etcdwright + " version");
        assertTrue(loaded.contains("io.etcdwright.cli.Main source: shared objects file"),
                "the launcher does not map etcdwright's classes from the archive: "
                        + loaded.lines().filter(l -> l.contains("io.etcdwright.cli.Main")).toList());
    }

    /**
     * Without an archive it can use, the launcher prints what it prints with one, on stdout and stderr
     * together: the archive removed, other JVMs' archives made for other class paths, a file that is no
     * archive, and one this user cannot read. The archive is put back after.
     */
    private static void quietWithoutAUsableArchive(String etcdwright, String archive) {
        String run = "ETCDWRIGHT_HOME=" + HOSTS.home() + " " + etcdwright + " version 2>&1";
        Testbed.ssh(RUNNER, "mv " + archive + " /root/kept.jsa");
        try {
            assertEquals(version, Testbed.ssh(RUNNER, run), "without an archive");
            for (String other : OTHER_ARCHIVES) {
                // Newer than the jar, as one made after the install would be: the launcher passes it on.
                Testbed.ssh(RUNNER, "cp " + other + " " + archive + " && touch " + archive);
                assertEquals(version, Testbed.ssh(RUNNER, run), "with another JVM's archive in place (" + other + ")");
            }
            Testbed.ssh(RUNNER, "head -c 65536 /dev/urandom > " + archive);  // newer than the jar: passed on
            assertEquals(version, Testbed.ssh(RUNNER, run), "with a file that is not an archive");
            Testbed.ssh(RUNNER, "cp /root/kept.jsa " + archive + " && chmod 0600 " + archive);
            assertEquals(version, Testbed.ssh(RUNNER, "cd / && runuser -u nobody -- env ETCDWRIGHT_HOME=/tmp/nobody-home "
                    + etcdwright + " version 2>&1"), "with an archive this user cannot read");
        } finally {
            Testbed.ssh(RUNNER, "mv -f /root/kept.jsa " + archive + " && chmod 0644 " + archive);
        }
    }

    /**
     * The plan's warnings of what the facts measured as they were gathered, a disk's synchronous write
     * time and a host's clock offset, differ from one gathering to the next (on a loaded machine one
     * run warns of a slow disk and the next not): left out of the comparison; every step, note and
     * other warning stays in.
     */
    private static String withoutLiveMeasurements(String planOutput) {
        return planOutput.lines().filter(l -> !l.matches("warning: \\S+: (a synchronous 8 KiB write takes|its clock is) .*"))
                .map(l -> l + "\n").collect(java.util.stream.Collectors.joining());
    }

    /** Printed for the report, never asserted: three runs of 'version' each, medians in ms. */
    private static void startupBesideTheLauncher() {
        String median = "for i in 1 2 3; do s=$(date +%s%N); etcdwright version >/dev/null;"
                + " echo $(( ($(date +%s%N) - s) / 1000000 )); done | sort -n | sed -n 2p";
        String onRunner = Testbed.ssh(RUNNER, median).strip();
        String withoutArchive = Testbed.ssh(RUNNER, "mv " + ARCHIVE + " /root/kept.jsa && { " + median + "; }; mv /root/kept.jsa " + ARCHIVE)
                .strip();
        Testbed.Result archive = Testbed.exec(List.of(Testbed.ROOT.resolve("scripts/cds-archive").toString()));
        assertEquals(0, archive.exitCode(), archive.stderr());
        Testbed.Result launcher = Testbed.exec(List.of("bash", "-c", "for i in 1 2 3; do s=$(date +%s%N); '"
                + Testbed.ROOT.resolve("bin/etcdwright") + "' version >/dev/null; echo $(( ($(date +%s%N) - s) / 1000000 )); done"
                + " | sort -n | sed -n 2p"));
        System.out.printf("startup of 'etcdwright version' (median of 3, load %s): the package on h1 %s ms (%s ms without"
                + " its archive), bin/etcdwright on the workstation %s ms%n", load(), onRunner, withoutArchive, launcher.stdout().strip());
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        } catch (IOException e) {
            return "?";
        }
    }

    private static void copy(Path from, Path to) {
        List<String> scp = new ArrayList<>(List.of("scp", "-q", "-p", "-r", "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=yes",
                "-o", "UserKnownHostsFile=" + Testbed.KNOWN_HOSTS, "-i", Testbed.KEY.toString(), from.toString(),
                "root@" + Testbed.address(RUNNER) + ":" + to));
        Testbed.Result r = Testbed.exec(scp);
        assertEquals(0, r.exitCode(), "scp " + from + " to h" + RUNNER + ":" + to + ": " + r.stderr());
    }

    private static Path only(String glob) throws IOException {
        try (Stream<Path> files = Files.list(RELEASE)) {
            List<Path> found = files.filter(p -> p.getFileSystem().getPathMatcher("glob:" + glob).matches(p.getFileName())).toList();
            assertEquals(1, found.size(), "expected one " + glob + " in " + RELEASE + " (made by scripts/package), found " + found);
            return found.get(0);
        } catch (java.nio.file.NoSuchFileException e) {
            throw new AssertionError(RELEASE + " does not exist: run scripts/package first (scripts/test does)", e);
        }
    }
}
