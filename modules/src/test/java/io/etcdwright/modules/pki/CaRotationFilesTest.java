package io.etcdwright.modules.pki;

import static io.etcdwright.modules.pki.Fixtures.CLOCK;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaRotationFilesTest {
    @TempDir
    Path pki;

    private CaRotationFiles begun() {
        CaRotationFiles files = new CaRotationFiles(pki.resolve("rotation"));
        CertificateAuthority old = CertificateAuthority.generate("old", KeyAlgorithm.ECDSA_P256, Duration.ofDays(30), CLOCK);
        CertificateAuthority next = CertificateAuthority.generate("new", KeyAlgorithm.ECDSA_P256, Duration.ofDays(30), CLOCK);
        assertTrue(files.begin(List.of(old.certificate()), next.certificate()));
        return files;
    }

    /** A run killed while writing the bundle left its temporary file: the end of the rotation removes it too. */
    @Test
    void finishingRemovesWhatAKilledWriteOfItsFilesLeft() throws Exception {
        CaRotationFiles files = begun();
        Files.writeString(files.dir().resolve(".ca-bundle.crt.1234567.tmp"), "half a bundle");
        Files.writeString(files.dir().resolve(".phase.99.tmp"), "dro");
        files.finish();
        assertFalse(Files.exists(files.dir()));
        assertFalse(files.active());
        files.finish(); // a second end (the run killed after it) finds nothing to do
    }

    @Test
    void aFileEtcdwrightDidNotPutThereIsNamedAndKept() throws Exception {
        CaRotationFiles files = begun();
        Files.writeString(files.dir().resolve("notes.txt"), "the operator's");
        IllegalStateException refused = assertThrows(IllegalStateException.class, files::finish);
        assertTrue(refused.getMessage().contains("[notes.txt]"), refused.getMessage());
        assertEquals(List.of("notes.txt"), Files.list(files.dir()).map(p -> p.getFileName().toString()).toList());
    }
}
