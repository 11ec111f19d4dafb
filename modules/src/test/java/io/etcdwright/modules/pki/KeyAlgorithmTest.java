package io.etcdwright.modules.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.security.KeyPair;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.RSAPrivateKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class KeyAlgorithmTest {

    @ParameterizedTest
    @EnumSource(KeyAlgorithm.class)
    void configNameRoundTrips(KeyAlgorithm algorithm) {
        assertSame(algorithm, KeyAlgorithm.fromName(algorithm.configName()));
        assertSame(algorithm, KeyAlgorithm.fromName(" " + algorithm.configName().toUpperCase() + " "));
    }

    @Test
    void namesAreTheOnesTheDesiredStateFileUses() {
        assertEquals("ecdsa-p256", KeyAlgorithm.ECDSA_P256.configName());
        assertEquals("rsa-2048", KeyAlgorithm.RSA_2048.configName());
        assertEquals("rsa-4096", KeyAlgorithm.RSA_4096.configName());
        assertSame(KeyAlgorithm.ECDSA_P256, KeyAlgorithm.DEFAULT);
    }

    @Test
    void unknownNameListsTheValidOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> KeyAlgorithm.fromName("ed25519"));
        assertEquals("unknown key algorithm 'ed25519': use one of ecdsa-p256, rsa-2048, rsa-4096", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> KeyAlgorithm.fromName(null));
    }

    @Test
    void generatesKeysOfTheAdvertisedTypeAndSize() {
        KeyPair ec = KeyAlgorithm.ECDSA_P256.generateKeyPair();
        assertTrue(ec.getPrivate() instanceof ECPrivateKey);
        assertEquals(256, KeyAlgorithm.keyBitsOf(ec.getPublic()));

        KeyPair rsa = KeyAlgorithm.RSA_2048.generateKeyPair();
        assertTrue(rsa.getPrivate() instanceof RSAPrivateKey);
        assertEquals(2048, KeyAlgorithm.keyBitsOf(rsa.getPublic()));
    }

    /** Prints figures for the report and for choosing the default; never asserts on time. */
    @Test
    void printsKeyGenerationTimes() {
        for (KeyAlgorithm algorithm : new KeyAlgorithm[] {KeyAlgorithm.ECDSA_P256, KeyAlgorithm.RSA_2048}) {
            long first = time(algorithm);
            int runs = algorithm == KeyAlgorithm.ECDSA_P256 ? 200 : 20;
            long[] samples = new long[runs];
            for (int i = 0; i < runs; i++) {
                samples[i] = time(algorithm);
            }
            java.util.Arrays.sort(samples);
            System.out.printf("key generation %-10s first %7.2f ms, then median %7.2f ms, max %7.2f ms over %d runs%n",
                    algorithm.configName(), first / 1e6, samples[runs / 2] / 1e6, samples[runs - 1] / 1e6, runs);
        }
        long rsa4096 = time(KeyAlgorithm.RSA_4096);
        System.out.printf("key generation %-10s one run %7.2f ms%n", KeyAlgorithm.RSA_4096.configName(), rsa4096 / 1e6);
    }

    private static long time(KeyAlgorithm algorithm) {
        long start = System.nanoTime();
        algorithm.generateKeyPair();
        return System.nanoTime() - start;
    }
}
