package io.etcdwright.engine.ssh;

import com.jcraft.jsch.JSch;
import com.jcraft.jsch.Session;

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

    /** No algorithm tried out at connect time: {@code SshAlgorithmsTest} proves them all at build time. */
    static void skipAvailabilityChecks(Session session) {
        AVAILABILITY_CHECKS.forEach(check -> session.setConfig(check, ""));
    }
}
