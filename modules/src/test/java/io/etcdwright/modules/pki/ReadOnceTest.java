package io.etcdwright.modules.pki;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ReadOnceTest {
    @Test
    void aTextIsParsedOnceAndAFailureIsNotKept() {
        ReadOnce<Object> once = new ReadOnce<>();
        AtomicInteger parses = new AtomicInteger();
        Object first = once.get("text", () -> { parses.incrementAndGet(); return new Object(); });
        assertSame(first, once.get("text", () -> { parses.incrementAndGet(); return new Object(); }));
        assertEquals(1, parses.get());
        assertThrows(PkiException.class, () -> once.get("bad", () -> { throw new PkiException("damaged PEM in h1:/x"); }));
        assertEquals("again", once.get("bad", () -> "again"), "a failure is asked again, not remembered");
    }

    @Test
    void aTextParsedByOneThreadIsWaitedForByTheOthers() throws Exception {
        ReadOnce<Object> once = new ReadOnce<>();
        AtomicInteger parses = new AtomicInteger();
        java.util.concurrent.CountDownLatch start = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(5);
        try {
            List<java.util.concurrent.Future<Object>> answers = new java.util.ArrayList<>();
            for (int i = 0; i < 5; i++) {
                answers.add(pool.submit(() -> {
                    start.await();
                    return once.get("the cluster's CA", () -> {
                        parses.incrementAndGet();
                        try {
                            Thread.sleep(50);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                        return new Object();
                    });
                }));
            }
            start.countDown();
            Object first = answers.get(0).get();
            for (java.util.concurrent.Future<Object> answer : answers) {
                assertSame(first, answer.get());
            }
            assertEquals(1, parses.get(), "five workers meeting one text at once parse it once");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void pastTheBoundAnswersAreGivenButNotKept() {
        ReadOnce<Integer> once = new ReadOnce<>();
        for (int i = 0; i < 4096; i++) {
            once.get("t" + i, () -> 0);
        }
        AtomicInteger parses = new AtomicInteger();
        once.get("late", parses::incrementAndGet);
        once.get("late", parses::incrementAndGet);
        assertEquals(2, parses.get());
    }

    @Test
    void theSameCertificateTextGivesTheSameCertificates() {
        String pem = Pem.certificate(CertificateAuthority.generate("read once", KeyAlgorithm.ECDSA_P256,
                java.time.Duration.ofDays(30), Fixtures.CLOCK).certificate());
        assertSame(Pem.readCertificates(pem, "a").get(0), Pem.readCertificates(pem, "b").get(0));
        assertSame(CertificateInfo.parse(pem, "a"), CertificateInfo.parse(pem, "b"));
    }
}
