package io.etcdwright.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.modules.pki.CertificateAuthority;
import io.etcdwright.modules.pki.KeyAlgorithm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What operators rely on beyond the happy path: an apply killed half way converges on the next
 * run; nothing happens without confirmation; their own CA is used; certificates are renewed
 * before expiry and the members restarted to load them.
 */
class ConvergenceIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();

    @AfterEach
    void wipe() {
        Testbed.removeEtcd(3);
    }

    static Path spec(String name, String text) throws Exception {
        Path file = HOSTS.home().resolve(name + ".yaml");
        Files.writeString(file, text);
        return file;
    }

    static String example(String file) {
        return Testbed.example(file);
    }

    /** The real launcher in its own process, so it can be killed like an operator's ^C or a lost laptop. */
    static Process launch(String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of(Testbed.ROOT.resolve("bin/etcdwright").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("ETCDWRIGHT_HOME", HOSTS.home().toString());
        return pb.start();
    }

    @Test
    void anApplyKilledHalfWayConvergesOnTheNextRun() throws Exception {
        // The example with this testbed's release server (the file names the default testbed's).
        String spec = spec("three", example("three-node.yaml")).toString();
        Process first = launch("apply", "-i", INV, "-f", spec, "--yes");
        // Kill it while it works: after the plan, during install/certificates/config.
        String seen = "";
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        StringBuilder out = new StringBuilder();
        java.io.InputStream in = first.getInputStream();
        while (System.nanoTime() < deadline && !seen.contains("install etcd 3.5.16: changed")) {
            int b = in.read();
            if (b < 0) {
                break;
            }
            out.append((char) b);
            seen = out.toString();
        }
        first.destroyForcibly().waitFor();
        System.out.println("killed apply after:\n" + seen);
        assertFalse(seen.contains("RECAP"), "the first apply must not have finished");

        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec, "--detailed-exitcode");
        assertEquals(2, plan.exitCode(), "work is left: " + plan.all());
        Cli.Run second = Cli.run("apply", "-i", INV, "-f", spec, "--yes");
        assertEquals(0, second.exitCode(), second.all());
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec, "--detailed-exitcode").exitCode());
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec, "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean(), status.toString());
        assertEquals(3, status.path("members").size());
    }

    @Test
    void withoutYesOnlyTheWordYesConfirms() throws Exception {
        String spec = Testbed.ROOT.resolve("examples/single-node.yaml").toString();
        Process p = launch("apply", "-i", INV, "-f", spec);
        p.getOutputStream().write("y\n".getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(1, p.waitFor(), out);
        assertTrue(out.contains("Only 'yes' will be accepted"), out);
        assertTrue(out.contains("Not applied"), out);
        assertEquals(1, Testbed.sshStatus(1, "test -e /opt/etcd"), "nothing was done");
    }

    @Test
    void theOperatorsOwnCaSignsEveryCertificateAndItsKeyStaysPut() throws Exception {
        Path caDir = Files.createDirectories(HOSTS.home().resolve("my-ca"));
        CertificateAuthority.generate("Example Corp etcd CA", KeyAlgorithm.ECDSA_P256, Duration.ofDays(3650), Clock.systemUTC())
                .writeTo(caDir);
        Path spec = spec("byo", example("single-node.yaml").replace("name: single", "name: byo")
                .replace("  pki:\n", "  pki:\n    ca:\n      cert: my-ca/ca.crt\n      key: my-ca/ca.key\n"));
        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertFalse(apply.out().contains("create CA"), "an operator's CA is never replaced");
        String issuer = Testbed.ssh(1, "cat /etc/etcd/pki/server.crt");
        JsonNode facts = new ObjectMapper().readTree(Cli.run("facts", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        for (JsonNode cert : facts.path("hosts").get(0).path("certificates")) {
            assertTrue(cert.path("issuer").asText().contains("Example Corp etcd CA"), cert.toString());
        }
        assertTrue(issuer.contains("BEGIN CERTIFICATE"));
        assertFalse(Files.exists(HOSTS.home().resolve("clusters/byo/pki/ca.key")), "no CA of etcdwright's own was made");
        assertEquals(0, Cli.run("status", "-i", INV, "-f", spec.toString()).exitCode());
    }

    @Test
    void certificatesAreRenewedBeforeExpiryWithoutRestartingEtcd() throws Exception {
        String base = example("three-node.yaml").replace("name: three", "name: renew");
        Path spec = spec("renew", base);
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes").exitCode());
        String before = Testbed.ssh(2, "sha256sum /etc/etcd/pki/server.crt");

        // The same certificates, now inside the renewal window: 364 days left, renewed 400 before.
        Files.writeString(spec, base.replace("validityDays: 365", "validityDays: 730")
                .replace("renewBeforeDays: 30", "renewBeforeDays: 400"));
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode");
        assertEquals(2, plan.exitCode(), plan.all());
        assertTrue(plan.out().contains("renews 400 days before expiry"), plan.out());
        assertTrue(plan.out().contains("etcd reads its certificate at each new TLS handshake: no restart"), plan.out());
        assertFalse(plan.out().contains("restart etcd"), plan.out());

        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        assertFalse(before.equals(Testbed.ssh(2, "sha256sum /etc/etcd/pki/server.crt")), "a new certificate");
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean());
        for (JsonNode m : status.path("members").deepCopy()) {
            assertTrue(m.path("cert_days_left").asInt() > 700, "etcd serves the renewed certificate: " + m);
        }
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode(),
                "renewed once, not on every run");
    }

    @Test
    void aPatchVersionRollsMemberByMemberAndAMinorChangeIsRefused() throws Exception {
        String newest = Testbed.newestRelease("3.5");
        String base = example("three-node.yaml").replace("name: three", "name: patch");
        Path spec = spec("patch", base);
        assertEquals(0, Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes").exitCode());

        Files.writeString(spec, base.replace("version: 3.5.16", "version: " + newest));
        Cli.Run plan = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertTrue(plan.out().contains("~ install etcd " + newest + " (3.5.16 installed)"), plan.out());
        assertTrue(plan.out().contains("restart etcd (binary changed, unit changed"), plan.out());
        String leader = "";
        for (JsonNode m : new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out())
                .path("members")) {
            leader = m.path("leader").asBoolean() ? m.path("name").asText() : leader;
        }
        List<String> restartOrder = restartOrder(plan.out());
        assertEquals(3, restartOrder.size(), plan.out());
        assertEquals(leader, restartOrder.get(2), "the leader restarts last: " + plan.out());

        Cli.Run apply = Cli.run("apply", "-i", INV, "-f", spec.toString(), "--yes");
        assertEquals(0, apply.exitCode(), apply.all());
        JsonNode status = new ObjectMapper().readTree(Cli.run("status", "-i", INV, "-f", spec.toString(), "-o", "json").out());
        assertTrue(status.path("healthy").asBoolean());
        for (JsonNode m : status.path("members")) {
            assertEquals(newest, m.path("version").asText(), m.toString());
        }
        assertEquals(0, Cli.run("plan", "-i", INV, "-f", spec.toString(), "--detailed-exitcode").exitCode());

        Files.writeString(spec, base.replace("version: 3.5.16", "version: 3.4.23"));
        Cli.Run minor = Cli.run("plan", "-i", INV, "-f", spec.toString());
        assertEquals(1, minor.exitCode());
        assertTrue(minor.out().contains("a minor downgrade from " + newest + " to 3.4.23 cannot roll member by member"), minor.out());
        assertTrue(minor.out().contains("apply with --allow-downtime"), minor.out());
    }

    /** The hosts of the plan's restart steps, in plan order. */
    static List<String> restartOrder(String planText) {
        List<String> hosts = new java.util.ArrayList<>();
        String host = "";
        for (String line : planText.split("\n")) {
            if (!line.startsWith(" ") && line.endsWith(":")) {
                host = line.substring(0, line.length() - 1);
            } else if (line.strip().replaceFirst("^\\[\\w+\\] +", "").startsWith("> restart etcd")) {
                // A step line, after its safety class: "  [change]  > restart etcd (binary changed, unit changed)".
                hosts.add(host);
            }
        }
        return hosts;
    }
}
