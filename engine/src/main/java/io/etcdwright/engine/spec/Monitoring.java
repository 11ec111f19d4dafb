package io.etcdwright.engine.spec;

import java.util.Objects;
import java.util.Optional;

/**
 * What the spec asks the hosts to tell Prometheus (docs/monitoring.md): with a {@code monitoring}
 * section, the members' timer jobs write node_exporter textfile metrics into
 * {@code textfileDir} after every run, and each member carries its certificates' expiry times.
 *
 * @param textfileDir node_exporter's textfile collector directory on the members; empty: no
 *                    metrics are written (the spec has no monitoring section)
 */
public record Monitoring(Optional<String> textfileDir) {
    /** Where Debian's prometheus-node-exporter reads textfiles (its --collector.textfile.directory). */
    public static final String DEBIAN_TEXTFILE_DIR = "/var/lib/prometheus/node-exporter";
    public static final Monitoring NONE = new Monitoring(Optional.empty());

    public Monitoring {
        Objects.requireNonNull(textfileDir, "textfileDir");
    }

    public boolean enabled() {
        return textfileDir.isPresent();
    }
}
