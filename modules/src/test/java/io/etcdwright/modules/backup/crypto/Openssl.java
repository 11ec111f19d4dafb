package io.etcdwright.modules.backup.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The real /usr/bin/openssl, run with argument lists. Missing openssl fails the test (the
 * IOException from ProcessBuilder): interop with it is the point, so it is never skipped.
 */
public final class Openssl {
    static final String BINARY = "/usr/bin/openssl";

    private Openssl() {
    }

    /** Runs openssl with {@code args}, asserting it exits 0; returns stdout+stderr. */
    static String run(String... args) throws IOException, InterruptedException {
        Result result = tryRun(args);
        assertEquals(0, result.exitCode(), () -> "openssl " + String.join(" ", args) + " failed:\n" + result.output());
        return result.output();
    }

    static Result tryRun(String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(BINARY);
        command.addAll(List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getOutputStream().close();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        return new Result(process.waitFor(), output);
    }

    /** A self-signed EC P-256 certificate and its unencrypted PKCS#8 key, as the docs make them. */
    public static KeyFiles ecKeyPair(Path dir, String name) throws IOException, InterruptedException {
        return keyPair(dir, name, "ec", "ec_paramgen_curve:P-256");
    }

    /** The same with an RSA key (2048 bits, to keep the tests quick; the docs say 3072). */
    static KeyFiles rsaKeyPair(Path dir, String name) throws IOException, InterruptedException {
        return keyPair(dir, name, "rsa", "rsa_keygen_bits:2048");
    }

    private static KeyFiles keyPair(Path dir, String name, String type, String option)
            throws IOException, InterruptedException {
        Path key = dir.resolve(name + ".key");
        Path certificate = dir.resolve(name + ".crt");
        Path publicKey = dir.resolve(name + ".pub");
        run("req", "-x509", "-newkey", type, "-pkeyopt", option, "-nodes", "-keyout", key.toString(),
                "-out", certificate.toString(), "-subj", "/CN=" + name, "-days", "2");
        run("pkey", "-in", key.toString(), "-pubout", "-out", publicKey.toString());
        return new KeyFiles(key, certificate, publicKey);
    }

    record Result(int exitCode, String output) {
    }

    public record KeyFiles(Path key, Path certificate, Path publicKey) {
    }
}
