package io.etcdwright.engine.source;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;

/** Test input files: from src/test/resources, or written into a test's temporary directory. */
public final class Fixtures {

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
