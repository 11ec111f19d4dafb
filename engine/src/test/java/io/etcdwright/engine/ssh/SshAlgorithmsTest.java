package io.etcdwright.engine.ssh;

import com.jcraft.jsch.Cipher;
import com.jcraft.jsch.JSch;
import com.jcraft.jsch.KeyExchange;
import com.jcraft.jsch.MAC;
import com.jcraft.jsch.Session;
import com.jcraft.jsch.Signature;
import com.jcraft.jsch.SignatureEdDSA;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections skip jsch's availability checks ({@link SshAlgorithms}): this proves, once, what
 * those checks would prove at every connection, the same way jsch does it, for every algorithm
 * a session may propose; and that BouncyCastle's Ed25519 signs and verifies exactly as the JDK's.
 */
class SshAlgorithmsTest {
    private static Session session;

    @BeforeAll
    static void configured() throws Exception {
        SshAlgorithms.useBouncyCastleCurves();
        // Not connected: the proposals are read from it as SshConnections sets them up.
        session = new JSch().getSession("root", "127.0.0.1", 22);
        session.setConfig("cipher.c2s", SshConnections.preferredCiphers(session.getConfig("cipher.c2s")));
        session.setConfig("cipher.s2c", SshConnections.preferredCiphers(session.getConfig("cipher.s2c")));
    }

    private static List<String> proposal(String key) {
        return Arrays.asList(session.getConfig(key).split(","));
    }

    @Test
    void everyKeyExchangeProposedRunsHere() throws Exception {
        Set<String> checkedByJsch = Set.of(JSch.getConfig("CheckKexes").split(","));
        assertTrue(proposal("kex").contains("curve25519-sha256"), proposal("kex").toString());
        for (String kex : proposal("kex")) {
            KeyExchange exchange = instance(session.getConfig(kex), KeyExchange.class);
            if (checkedByJsch.contains(kex)) {
                // What Session.checkKex does: the key pair made, nothing sent (no server version yet).
                exchange.init(session, null, null, null, null);
            }
        }
    }

    @Test
    void everyCipherAndMacProposedRunsHere() throws Exception {
        // ChaCha20-Poly1305 first (SshConnections.preferredCiphers), AES-GCM after it for hosts without it.
        assertEquals(List.of("chacha20-poly1305@openssh.com", "aes128-gcm@openssh.com"), proposal("cipher.c2s").subList(0, 2));
        assertEquals(proposal("cipher.c2s"), proposal("cipher.s2c"));
        Set<String> ciphers = new LinkedHashSet<>(proposal("cipher.c2s"));
        ciphers.addAll(proposal("cipher.s2c"));
        for (String name : ciphers) {
            Cipher cipher = instance(session.getConfig(name), Cipher.class);
            cipher.init(Cipher.ENCRYPT_MODE, new byte[cipher.getBlockSize()], new byte[cipher.getIVSize()]);
        }
        Set<String> macs = new LinkedHashSet<>(proposal("mac.c2s"));
        macs.addAll(proposal("mac.s2c"));
        for (String name : macs) {
            MAC mac = instance(session.getConfig(name), MAC.class);
            mac.init(new byte[mac.getBlockSize()]);
        }
    }

    @Test
    void everyHostKeyAndUserKeySignatureRunsHere() throws Exception {
        Set<String> signatures = new LinkedHashSet<>(proposal("server_host_key"));
        signatures.addAll(proposal("PubkeyAcceptedAlgorithms"));
        for (String name : signatures) {
            String base = name.replace("-cert-v01@openssh.com", "");
            Signature signature = instance(JSch.getConfig(base), Signature.class);
            signature.init();
        }
    }

    @Test
    void bouncyCastleEd25519SignsAndVerifiesAsTheJdkDoes() throws Exception {
        assertEquals("com.jcraft.jsch.bc.SignatureEd25519", JSch.getConfig("ssh-ed25519"));
        KeyPair pair = KeyPairGenerator.getInstance("Ed25519").generateKeyPair();
        byte[] encodedPublic = pair.getPublic().getEncoded();
        byte[] encodedPrivate = pair.getPrivate().getEncoded();
        // X.509 and PKCS#8 encodings of Ed25519 end with the raw 32-byte key, as SSH carries it.
        byte[] rawPublic = Arrays.copyOfRange(encodedPublic, encodedPublic.length - 32, encodedPublic.length);
        byte[] rawPrivate = Arrays.copyOfRange(encodedPrivate, encodedPrivate.length - 32, encodedPrivate.length);
        byte[] data = "exchange hash".getBytes(StandardCharsets.UTF_8);

        SignatureEdDSA bc = newEd25519();
        bc.setPrvKey(rawPrivate);
        bc.update(data);
        byte[] bcSignature = bc.sign();

        java.security.Signature jdk = java.security.Signature.getInstance("Ed25519");
        jdk.initSign(pair.getPrivate());
        jdk.update(data);
        byte[] jdkSignature = jdk.sign();
        // Ed25519 is deterministic: the same key and message give the same signature.
        assertTrue(Arrays.equals(jdkSignature, bcSignature));

        jdk.initVerify(pair.getPublic());
        jdk.update(data);
        assertTrue(jdk.verify(bcSignature));
        SignatureEdDSA verifier = newEd25519();
        verifier.setPubKey(rawPublic);
        verifier.update(data);
        // As a host's signature arrives on the wire: string "ssh-ed25519", then string signature.
        assertTrue(verifier.verify(wire("ssh-ed25519", jdkSignature)));
    }

    @Test
    void theKeyExchangeHashesWithBouncyCastlesSha256AsTheJdkDoes() throws Exception {
        assertEquals(BouncyCastleSha256.class.getName(), JSch.getConfig("sha-256"));
        com.jcraft.jsch.HASH ours = new BouncyCastleSha256();
        com.jcraft.jsch.HASH jschs = instance("com.jcraft.jsch.jce.SHA256", com.jcraft.jsch.HASH.class);
        byte[] data = new byte[3000];
        new java.util.Random(7).nextBytes(data);
        for (com.jcraft.jsch.HASH hash : List.of(ours, jschs)) {
            hash.init();
            hash.update(data, 0, 1000);
            hash.update(data, 1000, 2000);
        }
        byte[] expected = java.security.MessageDigest.getInstance("SHA-256").digest(data);
        assertTrue(Arrays.equals(expected, ours.digest()));
        assertTrue(Arrays.equals(expected, jschs.digest()));
        assertEquals(jschs.getBlockSize(), ours.getBlockSize());
        assertEquals(jschs.name(), ours.name());
        // Used again for the next key derivation after init.
        ours.init();
        ours.update(data, 0, 3);
        assertTrue(Arrays.equals(java.security.MessageDigest.getInstance("SHA-256").digest(Arrays.copyOf(data, 3)), ours.digest()));
    }

    private static byte[] wire(String type, byte[] signature) {
        byte[] name = type.getBytes(StandardCharsets.US_ASCII);
        return java.nio.ByteBuffer.allocate(8 + name.length + signature.length)
                .putInt(name.length).put(name).putInt(signature.length).put(signature).array();
    }

    /** As jsch makes them, from within its package: some of its classes are not public. */
    private static <T> T instance(String className, Class<T> type) throws Exception {
        var constructor = Class.forName(className).asSubclass(type).getDeclaredConstructor();
        constructor.setAccessible(true);
        return constructor.newInstance();
    }

    private static SignatureEdDSA newEd25519() throws Exception {
        SignatureEdDSA signature = instance(JSch.getConfig("ssh-ed25519"), SignatureEdDSA.class);
        signature.init();
        return signature;
    }

    @Test
    void theWarmUpRunsTheHandshakesAlgorithmsAndLeavesFailuresToTheConnections() {
        SshAlgorithms.warmUp();
        assertEquals("com.jcraft.jsch.bc.XDH", JSch.getConfig("xdh"), "the warm-up runs what connections run");
        String random = JSch.getConfig("random");
        try {
            JSch.setConfig("random", "com.example.MissingRandom");
            // A connection that needs the missing class reports it; the warm-up only stops.
            org.junit.jupiter.api.Assertions.assertDoesNotThrow(SshAlgorithms::warmUp);
        } finally {
            JSch.setConfig("random", random);
        }
    }
}
