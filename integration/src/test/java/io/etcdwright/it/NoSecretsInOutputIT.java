package io.etcdwright.it;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * No private key leaves its file through etcdwright's output: a full create, status, plan, facts,
 * client-env, kube-apiserver-flags, saved plan, apply of that plan and destroy of the three-node
 * example, with every command's stdout and stderr (and the saved plan file) scanned for PEM
 * private-key blocks and for any piece of the workstation's key files or the test hosts' SSH key.
 */
class NoSecretsInOutputIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final String INV = Testbed.INVENTORY.toString();
    static final String SPEC = Testbed.ROOT.resolve("examples/three-node.yaml").toString();
    /** Long enough that a match is no coincidence, short enough to catch a key cut into lines or wrapped. */
    static final int FRAGMENT = 24;

    static Path scratch;

    @BeforeAll
    static void hosts() throws IOException {
        scratch = Testbed.scratch("no-secrets");
    }

    @Test
    void noCommandOfAWholeLifePrintsOrSavesKeyMaterial() throws IOException {
        Map<String, String> outputs = new LinkedHashMap<>();
        Cli.Run create = record(outputs, "apply", "-i", INV, "-f", SPEC, "--yes");
        assertEquals(0, create.exitCode(), create.all());
        // Read the keys now: they exist once the cluster is created.
        Map<String, String> secrets = keyBodies();
        assertTrue(secrets.size() >= 5, "the CA, the admin and apiserver clients, and the members' keys: " + secrets.keySet());

        record(outputs, "validate", "-i", INV, "-f", SPEC);
        record(outputs, "status", "-i", INV, "-f", SPEC);
        record(outputs, "status", "-i", INV, "-f", SPEC, "-o", "json");
        record(outputs, "facts", "-i", INV);
        record(outputs, "facts", "-i", INV, "-f", SPEC);
        record(outputs, "facts", "-i", INV, "-f", SPEC, "-o", "json");
        record(outputs, "client-env", "-i", INV, "-f", SPEC);
        record(outputs, "client-env", "-i", INV, "-f", SPEC, "-o", "json");
        record(outputs, "kube-apiserver-flags", "-i", INV, "-f", SPEC);
        record(outputs, "kube-apiserver-flags", "-i", INV, "-f", SPEC, "--workstation-paths", "-o", "json");

        // Changes to plan: a missing key on a host and a stopped member, so plans have steps that
        // touch key files (and --diff has something to show).
        Testbed.ssh(1, "rm /etc/etcd/pki/peer.key");
        Testbed.ssh(2, "systemctl stop etcd");
        record(outputs, "plan", "-i", INV, "-f", SPEC);
        record(outputs, "plan", "-i", INV, "-f", SPEC, "--diff");
        record(outputs, "plan", "-i", INV, "-f", SPEC, "-o", "json");
        Path planFile = scratch.resolve("repair.plan");
        Cli.Run saved = record(outputs, "plan", "-i", INV, "-f", SPEC, "--out", planFile.toString(), "--detailed-exitcode");
        assertEquals(2, saved.exitCode(), saved.all());
        outputs.put("the saved plan file " + planFile, Files.readString(planFile));
        Cli.Run applied = record(outputs, "apply", planFile.toString());
        assertEquals(0, applied.exitCode(), applied.all());

        // An error path: a command that fails on the hosts, which prints what went wrong.
        Testbed.ssh(3, "systemctl stop etcd");
        record(outputs, "status", "-i", INV, "-f", SPEC);

        Cli.Run destroy = record(outputs, "destroy", "-i", INV, "-f", SPEC, "--yes", "--wipe-data");
        assertEquals(0, destroy.exitCode(), destroy.all());
        record(outputs, "destroy", "-i", INV, "-f", SPEC, "--yes", "--wipe-data");

        List<String> leaks = new ArrayList<>();
        outputs.forEach((what, text) -> leaks.addAll(leaksIn(what, text, secrets)));
        assertTrue(leaks.isEmpty(), "key material in output:\n" + String.join("\n", leaks));
    }

    private static Cli.Run record(Map<String, String> outputs, String... args) {
        Cli.Run run = Cli.run(args);
        outputs.put("etcdwright " + String.join(" ", args) + " (#" + outputs.size() + ")", run.all());
        return run;
    }

    /** File name -> the base64 body of each private key the run holds (PEM armour and newlines removed). */
    private static Map<String, String> keyBodies() throws IOException {
        Map<String, String> bodies = new LinkedHashMap<>();
        Path pki = HOSTS.home().resolve("clusters");
        try (Stream<Path> files = Files.walk(pki)) {
            for (Path key : files.filter(f -> f.toString().endsWith(".key")).toList()) {
                bodies.put(key.toString(), body(Files.readString(key, StandardCharsets.US_ASCII)));
            }
        }
        bodies.put(Testbed.KEY.toString(), body(Files.readString(Testbed.KEY, StandardCharsets.US_ASCII)));
        bodies.values().forEach(b -> assertTrue(b.length() > 2 * FRAGMENT, "a key body long enough to scan"));
        return bodies;
    }

    private static String body(String pem) {
        StringBuilder body = new StringBuilder();
        for (String line : pem.split("\n")) {
            if (!line.startsWith("-----") && !line.isBlank()) {
                body.append(line.strip());
            }
        }
        return body.toString();
    }

    private static List<String> leaksIn(String what, String text, Map<String, String> secrets) {
        List<String> leaks = new ArrayList<>();
        if (text.contains("PRIVATE KEY")) {
            leaks.add(what + ": contains a PRIVATE KEY block");
        }
        String joined = text.replaceAll("\\s+", "");
        secrets.forEach((file, body) -> {
            for (int at = 0; at + FRAGMENT <= body.length(); at += FRAGMENT / 2) {
                String fragment = body.substring(at, at + FRAGMENT);
                // Skip the encoding's fixed headers (the same in every key of a type): they are not secret.
                boolean shared = secrets.entrySet().stream()
                        .anyMatch(other -> !other.getKey().equals(file) && other.getValue().contains(fragment));
                if (!shared && joined.contains(fragment)) {
                    leaks.add(what + ": contains part of " + file + " (from character " + at + ")");
                    return;
                }
            }
        });
        assertFalse(what.isEmpty());
        return leaks;
    }
}
