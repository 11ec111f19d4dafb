package io.etcdwright.engine.ssh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KnownHostsTest {
    @TempDir
    Path dir;

    /** An SSH public key blob: string type, then opaque bytes (enough for comparisons). */
    static byte[] blob(String type, int seed) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] t = type.getBytes(StandardCharsets.US_ASCII);
        out.write(0); out.write(0); out.write(0); out.write(t.length);
        out.writeBytes(t);
        for (int i = 0; i < 32; i++) {
            out.write(seed + i);
        }
        return out.toByteArray();
    }

    static String b64(byte[] b) {
        return Base64.getEncoder().encodeToString(b);
    }

    @Test
    void plainEntryIsKnownAndAnotherKeyOfTheSameTypeIsChanged() throws Exception {
        byte[] key = blob("ssh-ed25519", 1);
        Path file = dir.resolve("known_hosts");
        Files.writeString(file, "# comment\n10.77.0.11 ssh-ed25519 " + b64(key) + " h1\n");
        KnownHosts known = KnownHosts.read(file);
        assertEquals(KnownHosts.Verdict.KNOWN, known.check("10.77.0.11", key));
        assertEquals(KnownHosts.Verdict.CHANGED, known.check("10.77.0.11", blob("ssh-ed25519", 2)));
        assertEquals(KnownHosts.Verdict.UNKNOWN, known.check("10.77.0.12", key));
    }

    @Test
    void aHostKnownOnlyUnderAnotherKeyTypeIsRefusedAsChanged() throws Exception {
        Path file = dir.resolve("known_hosts");
        Files.writeString(file, "10.77.0.11 ssh-ed25519 " + b64(blob("ssh-ed25519", 1)) + "\n");
        assertEquals(KnownHosts.Verdict.CHANGED, KnownHosts.read(file).check("10.77.0.11", blob("ecdsa-sha2-nistp256", 1)));
    }

    @Test
    void nonDefaultPortsUseBracketsAndPatternsAndNegationsWork() throws Exception {
        byte[] key = blob("ssh-ed25519", 3);
        Path file = dir.resolve("known_hosts");
        Files.writeString(file, "[10.77.0.11]:2222 ssh-ed25519 " + b64(key) + "\n"
                + "10.77.0.*,!10.77.0.99 ssh-ed25519 " + b64(key) + "\n");
        KnownHosts known = KnownHosts.read(file);
        assertEquals(KnownHosts.Verdict.KNOWN, known.check("[10.77.0.11]:2222", key));
        assertEquals(KnownHosts.Verdict.KNOWN, known.check("10.77.0.42", key));
        assertEquals(KnownHosts.Verdict.UNKNOWN, known.check("10.77.0.99", key));
        assertEquals("[10.77.0.11]:2222", new SshTarget("h1", "10.77.0.11", 2222, "root",
                java.util.Optional.empty(), false).knownHostsName());
    }

    @Test
    void hashedNamesMatchAsOpenSshWritesThem() throws Exception {
        byte[] key = blob("ssh-ed25519", 4);
        byte[] salt = new byte[20];
        for (int i = 0; i < salt.length; i++) {
            salt[i] = (byte) i;
        }
        Mac mac = Mac.getInstance("HmacSHA1");
        mac.init(new SecretKeySpec(salt, "HmacSHA1"));
        String hashed = "|1|" + b64(salt) + "|" + b64(mac.doFinal("10.77.0.13".getBytes(StandardCharsets.UTF_8)));
        Path file = dir.resolve("known_hosts");
        Files.writeString(file, hashed + " ssh-ed25519 " + b64(key) + "\n");
        KnownHosts known = KnownHosts.read(file);
        assertEquals(KnownHosts.Verdict.KNOWN, known.check("10.77.0.13", key));
        assertEquals(KnownHosts.Verdict.UNKNOWN, known.check("10.77.0.14", key));
    }

    @Test
    void revokedKeysAreRefusedEvenWhenAlsoListed() throws Exception {
        byte[] key = blob("ssh-ed25519", 5);
        Path file = dir.resolve("known_hosts");
        Files.writeString(file, "@revoked * ssh-ed25519 " + b64(key) + "\n10.77.0.11 ssh-ed25519 " + b64(key) + "\n");
        assertEquals(KnownHosts.Verdict.REVOKED, KnownHosts.read(file).check("10.77.0.11", key));
    }

    @Test
    void trustOnFirstUseRecordsUnknownKeysButNeverReplacesChangedOnes() throws Exception {
        byte[] first = blob("ssh-ed25519", 6);
        Path file = dir.resolve("sub/known_hosts");
        KnownHosts.Repository repo = KnownHosts.read(file).repository(true);
        assertEquals(com.jcraft.jsch.HostKeyRepository.OK, repo.check("10.77.0.11", first));
        assertTrue(Files.readString(file).startsWith("10.77.0.11 ssh-ed25519 "));
        KnownHosts.Repository again = KnownHosts.read(file).repository(true);
        assertEquals(com.jcraft.jsch.HostKeyRepository.CHANGED, again.check("10.77.0.11", blob("ssh-ed25519", 7)));
        assertEquals(1, Files.readAllLines(file).size());
    }

    @Test
    void withoutTrustOnFirstUseUnknownKeysAreNotIncluded() {
        KnownHosts.Repository repo = KnownHosts.read(dir.resolve("absent")).repository(false);
        assertEquals(com.jcraft.jsch.HostKeyRepository.NOT_INCLUDED, repo.check("10.77.0.11", blob("ssh-ed25519", 8)));
        assertTrue(Files.notExists(dir.resolve("absent")));
    }

    @Test
    void fingerprintsLookLikeOpenSsh() {
        assertTrue(KnownHosts.fingerprint(blob("ssh-ed25519", 9)).matches("SHA256:[A-Za-z0-9+/]{43}"));
    }
}
