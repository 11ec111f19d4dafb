package io.etcdwright.modules.timer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * The scripts timer jobs install on hosts, as shipped in the jar. Each is one self-contained file
 * on the host, with the helpers every job needs (JSON strings, reading its configuration as data)
 * put in from {@value #LIB} where it says {@code # @include timer-job-lib.sh}: one copy in the
 * source, so a fix to how a configuration is read reaches every job.
 */
public final class HostScripts {
    static final String LIB = "timer-job-lib.sh";
    private static final String INCLUDE = "# @include " + LIB + "\n";

    private HostScripts() {
    }

    /** The script {@code name} beside {@code owner} in the jar, with the shared helpers put in. */
    public static byte[] load(Class<?> owner, String name) {
        String script = resource(owner, name);
        if (!script.contains(INCLUDE)) {
            throw new IllegalStateException(name + " in the etcdwright jar does not include " + LIB);
        }
        return script.replace(INCLUDE, resource(HostScripts.class, LIB)).getBytes(StandardCharsets.UTF_8);
    }

    private static String resource(Class<?> owner, String name) {
        try (InputStream in = owner.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the etcdwright jar");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name + " from the etcdwright jar", e);
        }
    }
}
