package io.etcdwright.modules.backup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.zip.GZIPInputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Blocks compressed in parallel still make one gzip file that every reader takes as one stream. */
class BackgroundEncoderTest {
    @TempDir
    Path dir;

    private static byte[] data(int size) {
        byte[] data = new byte[size];
        Random random = new Random(11);
        for (int i = 0; i < size; i += 4096) {
            if ((i / 4096) % 3 == 0) {
                byte[] page = new byte[Math.min(4096, size - i)];
                random.nextBytes(page);
                System.arraycopy(page, 0, data, i, page.length);
            } else {
                for (int j = i; j < Math.min(size, i + 4096); j++) {
                    data[j] = (byte) ('a' + j % 17);
                }
            }
        }
        return data;
    }

    private Path encode(byte[] data) throws IOException {
        Path object = Files.createFile(dir.resolve("object.gz"));
        BackgroundEncoder encoder = BackgroundEncoder.into(object, Optional.empty());
        Random chunks = new Random(3);
        for (int at = 0; at < data.length; ) {
            int n = Math.min(data.length - at, 1 + chunks.nextInt(40_000));
            encoder.write(data, at, n);
            at += n;
        }
        encoder.close();
        return object;
    }

    @Test
    void manyBlocksReadBackAsOneStreamInJavaAndWithGunzip() throws Exception {
        byte[] data = data(13 * 1024 * 1024 + 777); // four blocks, the last one partial
        Path object = encode(data);
        try (InputStream in = new GZIPInputStream(Files.newInputStream(object))) {
            assertArrayEquals(data, in.readAllBytes());
        }
        Path plain = dir.resolve("plain");
        Process gunzip = new ProcessBuilder(List.of("gzip", "-dc", object.toString())).redirectOutput(plain.toFile()).start();
        assertEquals(0, gunzip.waitFor(), "gzip -dc reads it");
        assertArrayEquals(data, Files.readAllBytes(plain));
    }

    @Test
    void anEmptyStreamIsStillAGzipFile() throws Exception {
        Path object = encode(new byte[0]);
        try (InputStream in = new GZIPInputStream(Files.newInputStream(object))) {
            assertEquals(0, in.readAllBytes().length);
        }
    }
}
