package io.etcdwright.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;

/**
 * The real test hosts, through the project's own {@code testbed/testbed}: systemd-nspawn
 * machines with their own network namespace, disk, systemd and sshd. Tests drive them exactly
 * as an operator would.
 */
final class Testbed {
    static final Path ROOT = Path.of(System.getProperty("etcdwright.root", "..")).toAbsolutePath().normalize();
    static final Path SCRIPT = ROOT.resolve("testbed/testbed");
    /**
     * The settings of this JVM's testbed, given to every testbed/testbed it runs. Lane 1 (one
     * surefire fork, or the first of several: {@code testbed.lane} is its fork number) is the
     * default testbed, or whatever the environment says; lane K beside it is a testbed of its own
     * (its own /24, names, release server port, hosts and inventory) sharing lane 1's rootfs and
     * release cache, which its hosts only read. Two lanes run two test classes at once: on two
     * cores the tests leave about half of the machine idle, waiting on etcd, systemd and SSH.
     */
    static final Map<String, String> SETTINGS = laneSettings(Integer.getInteger("testbed.lane", 1) + Integer.getInteger("testbed.lane.offset", 0));
    static final Path INVENTORY = Path.of(SETTINGS.get("TESTBED_INVENTORY_DIR")).resolve("hosts.yaml");
    static final Path KNOWN_HOSTS = INVENTORY.resolveSibling("known_hosts");
    static final Path HOME = Path.of(SETTINGS.get("TESTBED_HOME"));
    static final Path RELEASES = Path.of(SETTINGS.get("TESTBED_RELEASES"));
    static final Path KEY = HOME.resolve("id_ed25519");
    /**
     * Where the testbed keeps the console and journal of a host that failed to boot: in the
     * build directory, so a failed run leaves its evidence beside the test reports.
     */
    static final Path FAILED_HOST_LOGS = ROOT.resolve("integration/target/testbed-logs");

    private Testbed() {
    }

    /** N fresh hosts (empty disks), replacing whatever ran before. */
    static void up(int hosts) {
        run("up", String.valueOf(hosts));
    }

    static void down() {
        run("down");
    }

    /**
     * N more hosts (empty disks) beside the running ones, numbered after the highest host:
     * h4 after h1..h3. The running hosts are not touched; the inventory and every host's
     * /etc/hosts list the new ones.
     */
    static void add(int hosts) {
        run("add", String.valueOf(hosts));
    }

    /**
     * Host i gone for good: power cut, then its network, disk and host key deleted. The other
     * hosts are not touched; the inventory and their /etc/hosts no longer list it.
     */
    static void remove(int host) {
        run("remove", String.valueOf(host));
    }

    /** The lane's settings as testbed/testbed itself derives them (its 'settings' command): one place decides them. */
    private static Map<String, String> laneSettings(int lane) {
        try {
            ProcessBuilder builder = new ProcessBuilder(SCRIPT.toString(), "settings").redirectErrorStream(true);
            builder.environment().put("TESTBED_LANE", Integer.toString(lane));
            Process p = builder.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) {
                throw new IllegalStateException("testbed/testbed settings (TESTBED_LANE=" + lane + ") failed: " + out);
            }
            Map<String, String> settings = new LinkedHashMap<>();
            out.lines().map(l -> l.split("=", 2)).filter(kv -> kv.length == 2).forEach(kv -> settings.put(kv[0], kv[1]));
            return Map.copyOf(settings);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The testbed's /24 (TESTBED_NET): a second testbed on the machine runs on its own. */
    static final String NET = SETTINGS.get("TESTBED_NET");
    /** Its names' prefix (TESTBED_PREFIX): netns PREFIXh1, veth PREFIXv1. */
    static final String PREFIX = SETTINGS.get("TESTBED_PREFIX");
    /** Its release server's port on the bridge (TESTBED_HTTP_PORT). */
    static final String HTTP_PORT = SETTINGS.get("TESTBED_HTTP_PORT");

    static String address(int host) {
        return NET + "." + (10 + host);
    }

    /** The workstation's address on the testbed bridge: where hosts reach servers a test runs. */
    static String bridgeAddress() {
        return NET + ".1";
    }

    /** This testbed's release server (TESTBED_HTTP_PORT on the bridge), as the examples' artifact URLs name it. */
    static String releaseServer() {
        return "http://" + bridgeAddress() + ":" + HTTP_PORT + "/";
    }

    /**
     * The newest release of MINOR ("3.5") the testbed's release server offers (testbed/testbed
     * releases: Debian's 3.4 and 3.5 packages, the newest 3.5, 3.6 and 3.7 built from etcd's Go
     * modules); fails the test when it offers none.
     */
    static String newestRelease(String minor) {
        try {
            List<String> versions = Files.readAllLines(RELEASES.resolve("versions"));
            String newest = null;
            for (String v : versions) {
                if (v.startsWith(minor + ".")) {
                    newest = v;   // the file lists them oldest first (sort -V)
                }
            }
            if (newest == null) {
                throw new AssertionError("the testbed offers no etcd " + minor + ".x (" + versions
                        + "): run testbed/testbed releases (3.6 and 3.7 need Go, see its warnings)");
            }
            return newest;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * One of the project's examples (examples/FILE) with its artifact URLs pointed at this testbed's
     * release server: the examples name the default testbed's, which another testbed's hosts cannot reach.
     */
    static String example(String file) {
        try {
            return Files.readString(ROOT.resolve("examples").resolve(file)).replace("http://10.77.0.1:8799/", releaseServer());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Runs a command on host i as root; returns stdout; fails the test on a non-zero exit. */
    static String ssh(int host, String command) {
        Result r = exec(List.of(SCRIPT.toString(), "ssh", String.valueOf(host), command));
        if (r.exitCode != 0) {
            throw new AssertionError("on h" + host + ": '" + command + "' exited " + r.exitCode + ": " + r.stderr + r.stdout);
        }
        return r.stdout;
    }

    /** Runs a command on host i and returns its exit code (for checks where failure is the point). */
    static int sshStatus(int host, String command) {
        return exec(List.of(SCRIPT.toString(), "ssh", String.valueOf(host), command)).exitCode;
    }

    /** Removes everything etcdwright installs from hosts 1..n, so the next test starts from bare hosts. */
    static void removeEtcd(int hosts) {
        for (int h = 1; h <= hosts; h++) {
            sshStatus(h, "systemctl disable --now etcd 2>/dev/null; rm -rf /etc/etcd /opt/etcd /var/lib/etcd "
                    + "/etc/systemd/system/etcd.service /usr/local/bin/etcd*; systemctl daemon-reload");
        }
    }

    private static Path workstationHome;

    /** A fresh $ETCDWRIGHT_HOME (PKI dirs, release cache) for the in-process CLI runs of a test class. */
    static Path freshWorkstationHome() {
        try {
            workstationHome = Files.createTempDirectory("etcdwright-home");
            System.setProperty("etcdwright.home", workstationHome.toString());
            return workstationHome;
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /** A scratch directory of the test class (tools, plan files), removed with its workstation home. */
    static Path scratch(String name) {
        try {
            return Files.createDirectories(workstationHome.resolve("scratch").resolve(name));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Removes the test class's workstation home and scratch directories: CI runs on the same
     * machine again and again, and each class left tens of megabytes (etcd tools, a CA) in /tmp.
     */
    static void forgetWorkstationHome() {
        System.clearProperty("etcdwright.home");
        if (workstationHome != null) {
            deleteTree(workstationHome);
            workstationHome = null;
        }
    }

    static void deleteTree(Path root) {
        if (!Files.exists(root, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> all = Files.walk(root)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + root, e);
        }
    }

    static void run(String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(SCRIPT.toString());
        cmd.addAll(List.of(args));
        Result r = exec(cmd);
        if (r.exitCode != 0) {
            throw new AssertionError("testbed " + String.join(" ", args) + " exited " + r.exitCode + ":\n" + r.stderr + r.stdout);
        }
    }

    record Result(int exitCode, String stdout, String stderr) {
    }

    static Result exec(List<String> command) {
        try {
            Path err = Files.createTempFile("testbed", ".err");
            ProcessBuilder builder = new ProcessBuilder(command).redirectError(err.toFile());
            builder.environment().putIfAbsent("TESTBED_KEEP_LOGS", FAILED_HOST_LOGS.toString());
            // The lane alone: the script derives the rest of its settings from it, as it told laneSettings.
            builder.environment().put("TESTBED_LANE", SETTINGS.get("TESTBED_LANE"));
            Process p = builder.start();
            p.getOutputStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new AssertionError("timed out: " + command);
            }
            String errText = Files.readString(err);
            Files.deleteIfExists(err);
            return new Result(p.exitValue(), out, errText);
        } catch (IOException e) {
            throw new AssertionError("cannot run " + command + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }
}
