package io.etcdwright.engine.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test input files: from src/test/resources, or written into a test's temporary directory. */
public final class Fixtures {

    /**
     * A real CA certificate (ECDSA P-256, CN "etcd CA for cluster scn", valid until 2036): validate
     * reads a CA the spec brings as PEM, so a stand-in text would be refused.
     */
    public static final String CA_CERTIFICATE = """
            -----BEGIN CERTIFICATE-----
            MIIBhzCCAS2gAwIBAgIQMkIG706GCgqdVlJsDjZESzAKBggqhkjOPQQDAjAiMSAw
            HgYDVQQDDBdldGNkIENBIGZvciBjbHVzdGVyIHNjbjAeFw0yNjExMjcxNjU0MTJa
            Fw0zNjExMjQxNjU5MTJaMCIxIDAeBgNVBAMMF2V0Y2QgQ0EgZm9yIGNsdXN0ZXIg
            c2NuMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5PPRJfts7IJJdvTHONKqXXLn
            hcqEqKNAfXlwFruuncwttkdeI7K0/0n4FdDfPlBbf9QifyC7XhBTgQC1lNVHmKNF
            MEMwEgYDVR0TAQH/BAgwBgEB/wIBADAOBgNVHQ8BAf8EBAMCAQYwHQYDVR0OBBYE
            FHteEWG2JeT1MKv9Dt7NdcrSEeidMAoGCCqGSM49BAMCA0gAMEUCIQCVueBD/5Bt
            83qD06M1r378iTG2bvOGOjYL7kS67JgTNgIgUeDJPtHEh4c+lacTaAkR8KVhU5iz
            NLE8Jy5s1VthRy4=
            -----END CERTIFICATE-----
            """;

    private Fixtures() {}

    public static Path resource(String name) {
        URL url = Fixtures.class.getResource("/" + name);
        if (url == null) {
            throw new IllegalArgumentException("no test resource " + name);
        }
        try {
            return Path.of(url.toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    public static Path write(Path dir, String name, String content) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
