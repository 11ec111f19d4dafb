package io.etcdwright.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright restore on real hosts: a 3.5 cluster restored in place from an 'etcdctl snapshot
 * save' file, damaged copies of it refused before any member stops, the same file restored onto
 * three new hosts after the old ones are gone, and a 3.4.23 cluster restored with etcdctl (no
 * revision bump there). One testbed for all, in order: each case starts where the last one ended.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RestoreIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final String ETCDCTL_ENV = "export ETCDCTL_API=3 ETCDCTL_CACERT=/etc/etcd/pki/ca.crt ETCDCTL_CERT=/etc/etcd/pki/healthcheck-client.crt"
            + " ETCDCTL_KEY=/etc/etcd/pki/healthcheck-client.key ETCDCTL_ENDPOINTS=https://127.0.0.1:2379; ";
    static Path snapshot35;
    static Etcdctl etcdctl35;
    static Etcdctl etcdctl34;

    @BeforeAll
    static void hosts() {
        etcdctl35 = Etcdctl.unpack(Testbed.scratch("etcdctl-3.5.16"), "3.5.16");
        etcdctl34 = Etcdctl.unpack(Testbed.scratch("etcdctl-3.4.23"), "3.4.23");
    }

    /** A spec of this testbed (its release server), with these member hosts and version. */
    static String spec(String name, String hosts, String version) throws Exception {
        String net = Testbed.NET;
        String port = Testbed.HTTP_PORT;
        Path spec = HOSTS.home().resolve(name + ".yaml");
        Files.writeString(spec, Files.readString(Testbed.ROOT.resolve("examples/three-node.yaml"))
                .replace("http://10.77.0.1:8799/", "http://" + net + ".1:" + port + "/")
                .replace("name: three", "name: " + name)
                .replace("hosts: [h1, h2, h3]", "hosts: [" + hosts + "]")
                .replace("version: 3.5.16", "version: " + version));
        return spec.toString();
    }

    static Map<String, String> clientEnv(String spec) {
        Cli.Run env = Cli.run("client-env", "-i", INV, "-f", spec);
        assertEquals(0, env.exitCode(), env.all());
        return Etcdctl.env(env.out());
    }

    static void put(Etcdctl etcdctl, Map<String, String> env, String prefix, int n) {
        for (int i = 0; i < n; i++) {
            assertEquals(0, etcdctl.run(env, "put", prefix + i, "value-" + i).exitCode());
        }
    }

    static List<String> keys(Etcdctl etcdctl, Map<String, String> env) {
        Testbed.Result r = etcdctl.run(env, "get", "", "--prefix", "--keys-only");
        assertEquals(0, r.exitCode(), r.stderr());
        return r.stdout().lines().filter(l -> !l.isBlank()).toList();
    }

    static long revision(Etcdctl etcdctl, Map<String, String> env) {
        Testbed.Result r = etcdctl.run(env, "get", "/before/0", "-w", "json");
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"revision\":(\\d+)").matcher(r.stdout());
        assertTrue(m.find(), r.stdout());
        return Long.parseLong(m.group(1));
    }

    /** 'etcdctl snapshot save' on a member's host, the file brought to the workstation. */
    static Path saveSnapshot(int host, String version, String name) throws Exception {
        Testbed.ssh(host, ETCDCTL_ENV + "rm -f /root/s.db; /opt/etcd/v" + version + "/etcdctl snapshot save /root/s.db >/dev/null");
        byte[] bytes = Base64.getMimeDecoder().decode(Testbed.ssh(host, "base64 /root/s.db"));
        Path file = HOSTS.home().resolve(name);
        Files.write(file, bytes);
        return file;
    }

    static Cli.Run restore(String spec, Path from, String... more) {
        List<String> args = Cli.args("restore", "-i", INV, "-f", spec, "--from", from.toString(), "--yes");
        args.addAll(List.of(more));
        return Cli.run(args);
    }

    @Test
    @Order(1)
    void damagedSnapshotsAreRefusedBeforeAnyMemberStopsThenTheGoodOneRestoresInPlace() throws Exception {
        String spec = spec("rs", "h1, h2, h3", "3.5.16");
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", spec, "--yes").exitCode());
        Map<String, String> env = clientEnv(spec);
        put(etcdctl35, env, "/before/", 20);
        snapshot35 = saveSnapshot(1, "3.5.16", "rs.db");
        long snapshotRevision = revision(etcdctl35, env);
        put(etcdctl35, env, "/after/", 5);
        String pidBefore = Testbed.ssh(2, "systemctl show -p MainPID --value etcd").strip();

        byte[] good = Files.readAllBytes(snapshot35);
        byte[] flipped = good.clone();
        flipped[good.length / 2] ^= 0x01;
        Path flippedFile = Files.write(HOSTS.home().resolve("flipped.db"), flipped);
        Cli.Run refused = restore(spec, flippedFile);
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("does not match its sha256 trailer"), refused.err());
        Path truncated = Files.write(HOSTS.home().resolve("truncated.db"), java.util.Arrays.copyOf(good, good.length - 1000));
        refused = restore(spec, truncated);
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.err().contains("cut short"), refused.err());
        refused = restore(spec, truncated, "--skip-hash-check");
        assertEquals(1, refused.exitCode(), "cut short: refused even when the hash check is skipped");
        assertEquals(pidBefore, Testbed.ssh(2, "systemctl show -p MainPID --value etcd").strip(), "etcd never stopped");
        assertTrue(keys(etcdctl35, env).contains("/after/4"), "the cluster's data is untouched");

        Cli.Run restored = restore(spec, snapshot35);
        assertEquals(0, restored.exitCode(), restored.all());
        assertTrue(restored.out().contains("DOWNTIME"), restored.out());
        assertEquals(0, etcdctl35.run(env, "endpoint", "health").exitCode(), "healthy by an independent etcdctl");
        List<String> keys = keys(etcdctl35, env);
        assertEquals(20, keys.stream().filter(k -> k.startsWith("/before/")).count(), keys.toString());
        assertTrue(keys.stream().noneMatch(k -> k.startsWith("/after/")), "keys written after the snapshot are gone: " + keys);
        assertTrue(revision(etcdctl35, env) >= snapshotRevision + 1_000_000_000L, "revision bumped");
        for (int h = 1; h <= 3; h++) {
            assertEquals("1", Testbed.ssh(h, "ls -d /var/lib/etcd.pre-restore-* | wc -l").strip(), "old data kept on h" + h);
            assertEquals(0, Testbed.sshStatus(h, "test -d \"$(ls -d /var/lib/etcd.pre-restore-*)/member/wal\""));
        }
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec, "--detailed-exitcode").exitCode(), "apply keeps the restored cluster");
    }

    @Test
    @Order(2)
    void theSameSnapshotRestoresOntoNewHostsWhenTheOldOnesAreGone() throws Exception {
        Testbed.add(3);
        for (int h = 1; h <= 3; h++) {
            Testbed.remove(h);
        }
        String spec = spec("rs", "h4, h5, h6", "3.5.16");
        Cli.Run restored = restore(spec, snapshot35);
        assertEquals(0, restored.exitCode(), restored.all());
        Map<String, String> env = clientEnv(spec);
        assertEquals(0, etcdctl35.run(env, "endpoint", "health").exitCode(), "healthy by an independent etcdctl");
        List<String> keys = keys(etcdctl35, env);
        for (int i = 0; i < 20; i++) {
            assertTrue(keys.contains("/before/" + i), "every key written before the backup: " + keys);
        }
        assertEquals(20, keys.size(), keys.toString());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec, "--detailed-exitcode").exitCode());
        assertEquals(0, Cli.run("destroy", "-i", INV, "-f", spec, "--yes", "--wipe-data").exitCode());
    }

    @Test
    @Order(3)
    void etcd3423RestoresWithEtcdctlAndSaysItCannotBumpTheRevision() throws Exception {
        String spec = spec("rs34", "h4, h5, h6", "3.4.23");
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", spec, "--yes").exitCode());
        Map<String, String> env = clientEnv(spec);
        put(etcdctl34, env, "/before/", 10);
        Path snapshot = saveSnapshot(4, "3.4.23", "rs34.db");
        long snapshotRevision = revision(etcdctl34, env);
        put(etcdctl34, env, "/after/", 3);

        Cli.Run refused = restore(spec, snapshot, "--snapshot-version", "3.5.16");
        assertEquals(1, refused.exitCode(), refused.all());
        assertTrue(refused.out().contains("restore it with etcd 3.5.16 first"), refused.out());

        Cli.Run restored = restore(spec, snapshot);
        assertEquals(0, restored.exitCode(), restored.all());
        assertTrue(restored.out().contains("etcdctl 3.4.23 cannot raise the revision"), restored.out());
        assertEquals(0, etcdctl34.run(env, "endpoint", "health").exitCode());
        List<String> keys = keys(etcdctl34, env);
        assertEquals(10, keys.size(), keys.toString());
        assertFalse(keys.contains("/after/0"));
        long revision = revision(etcdctl34, env);
        assertTrue(revision >= snapshotRevision && revision < 1_000_000_000L, "not bumped: " + revision);

        // etcdwright's own backup of a 3.4 cluster, restored with 3.4's tool from the store.
        Files.writeString(Path.of(spec), Files.readString(Path.of(spec)) + "backup:\n  stores:\n    - {name: local, type: directory, path: "
                + HOSTS.home().resolve("store34") + "}\n");
        Cli.Run backup = Cli.run("backup", "-i", INV, "-f", spec);
        assertEquals(0, backup.exitCode(), backup.all());
        Cli.Run listed = Cli.run("backups", "list", "-i", INV, "-f", spec);
        assertTrue(listed.out().contains("3.4.23"), listed.out());
        put(etcdctl34, env, "/after-backup/", 2);
        Cli.Run fromStore = Cli.run("restore", "-i", INV, "-f", spec, "--from", "latest", "--yes");
        assertEquals(0, fromStore.exitCode(), fromStore.all());
        assertTrue(fromStore.out().contains("etcdctl 3.4.23"), fromStore.out());
        List<String> after = keys(etcdctl34, env);
        assertEquals(10, after.size(), after.toString());
        assertFalse(after.contains("/after-backup/0"));
    }
}
