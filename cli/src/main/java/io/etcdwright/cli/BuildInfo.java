package io.etcdwright.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Properties;

/**
 * What this build of etcdwright is: the version from the build (the parent pom's {@code revision}, the one
 * place it is written) and the commit it was built from, both written into {@code build.properties} by Maven.
 * A build from a source tree without git history knows its version but not its commit.
 */
record BuildInfo(String version, Optional<String> commit, Optional<String> commitTime, boolean dirty) {
    private static final String RESOURCE = "build.properties";

    static BuildInfo current() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE)) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE + " from etcdwright's jar", e);
        }
        return fromProperties(p);
    }

    static BuildInfo fromProperties(Properties p) {
        return new BuildInfo(filled(p, "version").orElse("development build"), filled(p, "commit"),
                filled(p, "commit.time"), filled(p, "dirty").map(Boolean::parseBoolean).orElse(false));
    }

    /** A value Maven filled in; one still reading {@code ${...}} (or empty) was unknown to the build. */
    private static Optional<String> filled(Properties p, String key) {
        String v = p.getProperty(key, "").strip();
        return v.isEmpty() || v.startsWith("${") ? Optional.empty() : Optional.of(v);
    }

    /** The commit as people quote it: its first 12 hex digits, and whether the tree had changes beyond it. */
    Optional<String> shortCommit() {
        return commit.map(c -> c.substring(0, Math.min(12, c.length())) + (dirty ? "-dirty" : ""));
    }

    /** "0.1.0 (commit 1860491abcde, 2026-11-27T16:20:11Z)", as {@code etcdwright version} prints it. */
    String describe() {
        return version + shortCommit().map(c -> " (commit " + c + commitTime.map(t -> ", " + t).orElse("") + ")")
                .orElse(" (commit unknown)");
    }
}
