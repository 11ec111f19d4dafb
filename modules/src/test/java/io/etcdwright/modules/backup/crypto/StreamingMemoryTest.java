package io.etcdwright.modules.backup.crypto;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.etcdwright.modules.backup.crypto.Openssl.KeyFiles;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 300 MiB through encryption and decryption in a JVM with a 32 MiB heap: if either side held the
 * backup (the JDK's GCM decryption does, which is why BouncyCastle's is used), it would run out
 * of memory.
 */
class StreamingMemoryTest {
    private static final int MIB = 300;

    @TempDir
    Path dir;

    @Test
    void threeHundredMebibytesRoundTripInA32MebibyteHeap() throws Exception {
        KeyFiles ec = Openssl.ecKeyPair(dir, "ec");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process process = new ProcessBuilder(List.of(java, "-Xmx32m", "-XX:+UseSerialGC",
                "-cp", System.getProperty("java.class.path"), StreamingMain.class.getName(),
                ec.certificate().toString(), ec.key().toString(), dir.toString(), String.valueOf(MIB)))
                .redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, process.waitFor(), output);
        String in = find(output, "in ([0-9a-f]{64})");
        assertEquals(in, find(output, "out ([0-9a-f]{64})"), output);
        long size = Long.parseLong(find(output, "encrypted bytes (\\d+)"));
        assertTrue(size > MIB * 1024L * 1024L && size < MIB * 1024L * 1024L + 64 * 1024, output);
        System.out.println("StreamingMemoryTest (-Xmx32m, " + MIB + " MiB): " + output.lines().reduce((a, b) -> b).orElse(""));
    }

    private static String find(String output, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(output);
        assertTrue(matcher.find(), () -> "no '" + regex + "' in:\n" + output);
        return matcher.group(1);
    }
}
