package io.etcdwright.modules.membership;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Finds a real etcd server binary for the tests, in this order:
 * <ol>
 *   <li>system property {@value #PROPERTY} ({@code mvn test -Detcdwright.etcd.bin=/path/to/etcd});</li>
 *   <li>environment variable {@value #ENV};</li>
 *   <li>{@value #TESTBED_RELEASE}: the testbed's release directory, holding either an unpacked
 *       release ({@code etcd} in it or one level down) or the release tarball
 *       {@code etcd-v3.5.16-linux-amd64.tar.gz}, which is unpacked into a temporary directory.</li>
 * </ol>
 * The property and the variable may name the binary itself or a directory holding it. Without
 * any of these the tests FAIL (they never skip) with a message saying how to provide one.
 */
final class EtcdBinary {
    static final String PROPERTY = "etcdwright.etcd.bin";
    static final String ENV = "ETCD_BIN";
    /** Where testbed/testbed releases puts it (scripts/setup runs that before the tests). */
    static final String TESTBED_RELEASE = System.getenv().getOrDefault("TESTBED_HOME", "/var/tmp/etcdwright-testbed")
            + "/releases/v3.5.16";

    static final String HOW_TO = "The etcdwright membership tests run a real etcd 3.5 server. Provide one with"
            + " -D" + PROPERTY + "=/path/to/etcd (mvn -Detcdwright.etcd.bin=... test), or the environment"
            + " variable " + ENV + "=/path/to/etcd, or put the etcd v3.5.16 release (unpacked or as"
            + " etcd-v3.5.16-linux-amd64.tar.gz) under " + TESTBED_RELEASE + "."
            + " Debian's etcd-server 3.5.16 package (trixie) works too: apt-get download etcd-server;"
            + " dpkg-deb -x etcd-server_*.deb DIR; then use DIR/usr/bin/etcd.";

    private EtcdBinary() {
    }

    /** The etcd binary; throws AssertionError (a failure, not a skip) saying how to provide one. */
    static Path locate(Path scratch) {
        String property = System.getProperty(PROPERTY);
        if (property != null && !property.isBlank()) {
            return fromSetting(Paths.get(property.trim()), "system property " + PROPERTY);
        }
        String env = System.getenv(ENV);
        if (env != null && !env.isBlank()) {
            return fromSetting(Paths.get(env.trim()), "environment variable " + ENV);
        }
        Path release = Paths.get(TESTBED_RELEASE);
        if (Files.isDirectory(release)) {
            Path unpacked = findEtcd(release);
            if (unpacked != null) {
                return unpacked;
            }
            Path tarball = tarball(release);
            if (tarball != null) {
                return extract(tarball, scratch);
            }
            throw new AssertionError(release + " holds neither an etcd binary nor an etcd-*.tar.gz. " + HOW_TO);
        }
        throw new AssertionError("No etcd binary found. " + HOW_TO);
    }

    private static Path fromSetting(Path path, String source) {
        Path etcd = Files.isDirectory(path) ? findEtcd(path) : path;
        if (etcd == null || !Files.isRegularFile(etcd) || !Files.isExecutable(etcd)) {
            throw new AssertionError(source + " names " + path + ", which is not an executable etcd binary"
                    + " (nor a directory holding one). " + HOW_TO);
        }
        return etcd;
    }

    /** {@code dir/etcd}, {@code dir/*}{@code /etcd} or {@code dir/usr/bin/etcd}. */
    private static Path findEtcd(Path dir) {
        Path direct = dir.resolve("etcd");
        if (Files.isRegularFile(direct) && Files.isExecutable(direct)) {
            return direct;
        }
        Path debian = dir.resolve("usr/bin/etcd");
        if (Files.isRegularFile(debian) && Files.isExecutable(debian)) {
            return debian;
        }
        try (Stream<Path> children = Files.list(dir)) {
            for (Path child : children.sorted().collect(Collectors.toList())) {
                Path nested = child.resolve("etcd");
                if (Files.isDirectory(child) && Files.isRegularFile(nested) && Files.isExecutable(nested)) {
                    return nested;
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static Path tarball(Path dir) {
        try (Stream<Path> children = Files.list(dir)) {
            List<Path> tarballs = children
                    .filter(p -> p.getFileName().toString().matches("etcd-v.*-linux-.*\\.tar\\.gz"))
                    .sorted()
                    .collect(Collectors.toList());
            return tarballs.isEmpty() ? null : tarballs.get(0);
        } catch (IOException e) {
            return null;
        }
    }

    private static Path extract(Path tarball, Path scratch) {
        try {
            Path into = Files.createTempDirectory(scratch, "etcd-release-");
            Process tar = new ProcessBuilder("tar", "-xzf", tarball.toString(), "-C", into.toString())
                    .redirectErrorStream(true)
                    .start();
            String output = new String(tar.getInputStream().readAllBytes());
            if (!tar.waitFor(2, TimeUnit.MINUTES) || tar.exitValue() != 0) {
                tar.destroyForcibly();
                throw new AssertionError("cannot unpack " + tarball + ": " + output + " " + HOW_TO);
            }
            Path etcd = findEtcd(into);
            if (etcd == null) {
                throw new AssertionError(tarball + " holds no etcd binary. " + HOW_TO);
            }
            return etcd;
        } catch (IOException e) {
            throw new AssertionError("cannot unpack " + tarball + ": " + e + ". " + HOW_TO, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted while unpacking " + tarball, e);
        }
    }
}
