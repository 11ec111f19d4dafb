package io.etcdwright.engine.ssh;

import com.jcraft.jsch.Cipher;
import com.jcraft.jsch.HASH;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.KeyPairGenEdDSA;
import com.jcraft.jsch.Random;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.SignatureEdDSA;
import com.jcraft.jsch.XDH;

import java.util.List;

/**
 * How the SSH handshake's algorithms are chosen and run: what makes a connection cost what it
 * does on the workstation, where a short-lived command runs them in the JVM's quick JIT tier.
 *
 * <p>Two choices, both measured on a no-op plan of five members (docs/performance.md):
 * <ul>
 *   <li>Curve25519 (the key exchange) and Ed25519 (the host key and the user key) run on
 *       BouncyCastle, which ships in the jar, instead of the JDK's implementations: BouncyCastle's
 *       field arithmetic and precomputed tables cost about half the CPU of the JDK 17 classes for
 *       the same handshake, most of which runs interpreted or in C1 in a process this short.
 *       The algorithms, keys and wire format are the same; only the code that computes them differs.</li>
 *   <li>jsch proves at every connection that each key exchange, cipher and signature it may propose
 *       is available, by running it: a throw-away ML-KEM and X25519 key pair per connection, about
 *       half of a connection's CPU. What is available is a property of this runtime (Java 17 and
 *       the BouncyCastle in the jar), not of the host, so the build proves it once
 *       ({@code SshAlgorithmsTest}) and connections skip it. Nothing is proposed that could not run:
 *       the proposals are jsch's own.</li>
 * </ul>
 */
public final class SshAlgorithms {
    /** jsch's availability checks, each a comma-separated list of algorithms to try at connect time. */
    static final List<String> AVAILABILITY_CHECKS = List.of("CheckKexes", "CheckCiphers", "CheckMacs", "CheckSignatures");

    private SshAlgorithms() {
    }

    /** BouncyCastle's X25519, Ed25519 (and Ed448) and the exchange hash's SHA-256 for every session of this process. */
    static void useBouncyCastleCurves() {
        // Global in jsch: the user key's signature is made through JSch's own configuration.
        JSch.setConfig("xdh", "com.jcraft.jsch.bc.XDH");
        JSch.setConfig("keypairgen.eddsa", "com.jcraft.jsch.bc.KeyPairGenEdDSA");
        JSch.setConfig("ssh-ed25519", "com.jcraft.jsch.bc.SignatureEd25519");
        JSch.setConfig("ssh-ed448", "com.jcraft.jsch.bc.SignatureEd448");
        JSch.setConfig("sha-256", BouncyCastleSha256.class.getName());
    }

    /**
     * Runs a handshake's cryptography once, with throw-away keys: the random source's seeding, an
     * X25519 agreement, an Ed25519 key pair, signature and check, the exchange hash and a packet of
     * ChaCha20-Poly1305. Meant for a thread of its own at start-up, while the main thread still reads
     * the command line and the input: the first handshakes then find these classes initialised (the
     * random source, BouncyCastle's precomputed tables) and their loops compiled, where every
     * connection of a run would otherwise start them cold at the same moment, interpreted, about
     * 70 ms of a core. Only a warm-up: any failure is left to the connections, which report it.
     */
    public static void warmUp() {
        useBouncyCastleCurves();
        try {
            byte[] data = new byte[64];
            create("random", Random.class).fill(data, 0, data.length);
            XDH ours = create("xdh", XDH.class);
            XDH theirs = create("xdh", XDH.class);
            ours.init("X25519", 32);
            theirs.init("X25519", 32);
            ours.getSecret(theirs.getQ());
            KeyPairGenEdDSA keys = create("keypairgen.eddsa", KeyPairGenEdDSA.class);
            keys.init("Ed25519", 32);
            SignatureEdDSA signer = create("ssh-ed25519", SignatureEdDSA.class);
            signer.init();
            signer.setPrvKey(keys.getPrv());
            signer.update(data);
            byte[] signature = signer.sign();
            SignatureEdDSA verifier = create("ssh-ed25519", SignatureEdDSA.class);
            verifier.init();
            verifier.setPubKey(keys.getPub());
            verifier.update(data);
            verifier.verify(signature);
            HASH hash = create("sha-256", HASH.class);
            hash.init();
            hash.update(data, 0, data.length);
            hash.digest();
            Cipher cipher = create("chacha20-poly1305@openssh.com", Cipher.class);
            cipher.init(Cipher.ENCRYPT_MODE, new byte[64], new byte[cipher.getIVSize()]);
            byte[] packet = new byte[4 + 4096 + cipher.getTagSize()];
            cipher.update(0);
            cipher.update(packet, 0, 4, packet, 0);
            cipher.doFinal(packet, 4, 4096, packet, 4);
        } catch (Exception | LinkageError ignored) {
            // Nothing depends on it: a connection that meets the same problem reports it.
        }
    }

    private static <T> T create(String algorithm, Class<T> type) throws ReflectiveOperationException {
        return Class.forName(JSch.getConfig(algorithm)).asSubclass(type).getDeclaredConstructor().newInstance();
    }

    /** No algorithm tried out at connect time: {@code SshAlgorithmsTest} proves them all at build time. */
    static void skipAvailabilityChecks(Session session) {
        AVAILABILITY_CHECKS.forEach(check -> session.setConfig(check, ""));
    }
}
