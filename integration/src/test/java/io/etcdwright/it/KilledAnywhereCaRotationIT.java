package io.etcdwright.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * etcdwright SIGKILLed anywhere ({@link KillChain}) in a CA rotation of three members under writes:
 * the spec raises tls.pki.caGeneration and each of the three phases (trust both CAs, reissue, drop
 * the old CA) is one apply, killed at the points of its own plans until one is let finish. Each
 * phase's writers use what client-env prints when the phase starts (the old CA, the bundle, the new
 * admin) and are started before the previous phase's stop, as in {@link CaRotationIT}. At the end:
 * an empty plan, the members healthy with one cluster id, no rotation left, no acknowledged write lost.
 */
class KilledAnywhereCaRotationIT {
    @RegisterExtension
    static final TestHosts HOSTS = TestHosts.up(3);
    static final List<String> MEMBERS = List.of("h1", "h2", "h3");
    static KillChain chain;

    @Test
    void aCaRotationKilledAtEveryStepOfEachPhaseConvergesLosingNoWrite() throws Exception {
        Path spec = HOSTS.home().resolve("chaosca.yaml");
        chain = new KillChain(HOSTS.home(), spec);
        String base = Testbed.example("three-node.yaml").replace("name: three", "name: chaosca");
        chain.spec(base);
        Cli.Run create = Cli.run("apply", "-i", KillChain.INV, "-f", spec.toString(), "--yes");
        assertEquals(0, create.exitCode(), create.all());
        chain.spec(base + "    caGeneration: 2\n");

        assertEquals("pending", rotationPhase(spec));

        // One chain per phase. A kill inside a phase's last step, after its work, leaves the next
        // phase to plan, so the phases are followed as status reports them, not counted.
        Map<String, String> env = chain.clientEnv();
        WriteLoad previous = null;
        List<String> phases = new java.util.ArrayList<>();
        for (int chains = 0; !rotationPhase(spec).equals("none"); chains++) {
            assertTrue(chains < 3, "three phases, three applies let finish: " + phases);
            String phase = rotationPhase(spec);
            WriteLoad load = WriteLoad.startRecorded(env, 4, KillChain.LOGS.resolve("killed-anywhere-ca-" + phase + ".acks"));
            load.awaitMore(100, java.time.Duration.ofSeconds(30));
            if (previous != null) {
                WriteLoad.checkNothingLost(env, previous.stop(), "killed-anywhere-ca-before-" + phase, 3);
                previous.close();
            }
            KillChain.Result kills = chain.applies(KillChain.Sample.BOUNDARIES_AND_EACH_KIND_INSIDE, KilledAnywhereCaRotationIT::recordedPhase);
            assertTrue(kills.killed().size() >= 2, "phase " + phase + " has kill points: " + kills);
            phases.add(phase + ": " + kills.killed().size() + " kills");
            previous = load;
            env = chain.clientEnv();
        }
        System.out.println("[killed-anywhere-ca] phases " + phases);
        previous.awaitMore(100, java.time.Duration.ofSeconds(30));
        WriteLoad.Acks last = previous.stop();
        previous.close();
        chain.converged(MEMBERS);
        assertEquals(HOSTS.home().resolve("clusters/chaosca/pki/ca.crt").toString(), env.get("ETCDCTL_CACERT"), "clients trust the new CA alone");
        WriteLoad.checkNothingLost(env, last, "killed-anywhere-ca-last", 3);
        for (int h = 1; h <= 3; h++) {
            assertEquals(0, Testbed.sshStatus(h, "grep -c BEGIN /etc/etcd/pki/ca.crt | grep -qx 1"), "h" + h + " trusts one CA");
        }
    }

    /**
     * The phase the workstation records, read where status reads it, without a run of its own
     * between kills: "trust-both" from the start of the rotation (no record yet) until phase 1 is
     * verified, and again once phase 3 ended it (the record removed), so that it differs from the
     * phase a chain began in exactly when a killed run finished that phase.
     */
    private static String recordedPhase() {
        Path file = HOSTS.home().resolve("clusters/chaosca/pki/rotation/phase");
        try {
            return java.nio.file.Files.exists(file) ? java.nio.file.Files.readString(file).trim() : "trust-both";
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The rotation's phase as status reports it ("none" once no rotation is left). */
    private static String rotationPhase(Path spec) throws Exception {
        Cli.Run status = Cli.run("status", "-i", KillChain.INV, "-f", spec.toString(), "-o", "json");
        assertEquals(0, status.exitCode(), status.all());
        com.fasterxml.jackson.databind.JsonNode rotation = KillChain.JSON.readTree(status.out()).path("ca_rotation");
        return rotation.isNull() || rotation.isMissingNode() ? "none" : rotation.path("phase").asText();
    }
}
