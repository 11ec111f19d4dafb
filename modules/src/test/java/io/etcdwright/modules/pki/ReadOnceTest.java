package io.etcdwright.modules.pki;

import org.junit.jupiter.api.Test;

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
        assertSame(Pem.readCertificates(pem, "a"), Pem.readCertificates(pem, "b"));
        assertSame(CertificateInfo.parse(pem, "a"), CertificateInfo.parse(pem, "b"));
    }
}
