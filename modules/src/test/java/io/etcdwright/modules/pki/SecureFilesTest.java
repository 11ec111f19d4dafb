package io.etcdwright.modules.pki;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecureFilesTest {
    @TempDir
    Path dir;

    @Test
    void privateFilesAre0600AndPublicOnes0644() throws Exception {
        SecureFiles.writePrivate(dir.resolve("a.key"), "secret\n", "key");
        SecureFiles.writePublic(dir.resolve("a.crt"), "public\n", "certificate");
        assertEquals("rw-------", mode(dir.resolve("a.key")));
        assertEquals("rw-r--r--", mode(dir.resolve("a.crt")));
        assertEquals("secret\n", Files.readString(dir.resolve("a.key")));
    }

    @Test
    void replacingAWorldReadableKeyLeavesIt0600AndNoTemporaryFiles() throws Exception {
        Path key = dir.resolve("server.key");
        Files.writeString(key, "old");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-rw-rw-"));
        SecureFiles.writePrivate(key, "new", "key");
        assertEquals("rw-------", mode(key));
        assertEquals("new", Files.readString(key));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(1, files.count());
        }
    }

    @Test
    void aWriteRemovesTheTemporaryFileOfAKilledWriteOfTheSameFileAndNothingElse() throws Exception {
        Path key = dir.resolve("probe-client.key");
        Files.writeString(dir.resolve(".probe-client.key.8812345467.tmp"), "half a key");
        Files.writeString(dir.resolve(".probe-client.key.notdigits.tmp"), "someone's");
        Files.writeString(dir.resolve(".other.key.123.tmp"), "another file's");
        SecureFiles.writePrivate(key, "new", "key");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(java.util.List.of(".other.key.123.tmp", ".probe-client.key.notdigits.tmp", "probe-client.key"),
                    files.map(f -> f.getFileName().toString()).sorted().toList());
        }
    }

    @Test
    void leftoversOfAFileNeverWrittenAgainAreRemovedOnRequest() throws Exception {
        Files.writeString(dir.resolve(".ca-bundle.crt.42.tmp"), "half a bundle");
        SecureFiles.removeLeftovers(dir.resolve("ca-bundle.crt"));
        SecureFiles.removeLeftovers(dir.resolve("missing/ca-bundle.crt"));
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void createsMissingDirectoriesForTheOwnerOnly() throws Exception {
        Path key = dir.resolve("clusters/demo/pki/ca.key");
        SecureFiles.writePrivate(key, "k", "CA key");
        assertEquals("rwx------", mode(dir.resolve("clusters/demo/pki")));
        assertEquals("rwx------", mode(dir.resolve("clusters")));
    }

    static String mode(Path file) throws Exception {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(file));
    }
}
