package io.etcdwright.modules.service;

import io.etcdwright.engine.ssh.LocalHost;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * A stand-in {@code systemctl} on a {@link LocalHost}'s PATH: it keeps the unit's active and
 * enabled states in files of the host's directory and logs every call, so the service scripts
 * run their real code against a unit in any state.
 */
final class FakeSystemctl {
    private static final String SCRIPT = """
            #!/bin/sh
            echo "$*" >> calls
            state=$(cat active 2>/dev/null || echo inactive)
            enabled=$(cat enabled 2>/dev/null || echo disabled)
            case $1 in
              is-active) if [ "$2" = --quiet ]; then [ "$state" = active ]; exit; fi
                         echo "$state"; [ "$state" = active ]; exit ;;
              is-enabled) echo "$enabled"; [ "$enabled" = enabled ]; exit ;;
              start) echo active > active ;;
              stop) echo inactive > active ;;
              enable) echo enabled > enabled ;;
              disable) echo disabled > enabled ;;
              reset-failed|daemon-reload) ;;
              *) echo "unexpected systemctl $*" >&2; exit 9 ;;
            esac
            """;

    final LocalHost host;

    FakeSystemctl(Path dir, String active, String enabled) throws IOException {
        host = new LocalHost(dir);
        Path bin = dir.resolve("bin/systemctl");
        Files.writeString(bin, SCRIPT);
        Files.setPosixFilePermissions(bin, PosixFilePermissions.fromString("rwx------"));
        Files.writeString(dir.resolve("active"), active + "\n");
        Files.writeString(dir.resolve("enabled"), enabled + "\n");
    }

    String active() throws IOException {
        return Files.readString(host.dir.resolve("active")).strip();
    }

    String enabled() throws IOException {
        return Files.readString(host.dir.resolve("enabled")).strip();
    }

    /** The calls made, one line each, without the read-only look-ups. */
    List<String> changes() throws IOException {
        Path calls = host.dir.resolve("calls");
        if (!Files.exists(calls)) {
            return List.of();
        }
        return Files.readAllLines(calls, StandardCharsets.UTF_8).stream().filter(l -> !l.startsWith("is-")).toList();
    }
}
