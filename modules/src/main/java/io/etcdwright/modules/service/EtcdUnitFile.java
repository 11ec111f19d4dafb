package io.etcdwright.modules.service;

import io.etcdwright.modules.EtcdLayout;

/** The systemd unit that runs one etcd member. */
public final class EtcdUnitFile {
    private EtcdUnitFile() {
    }

    /**
     * The unit names the versioned binary, so a version change is a unit change and always
     * restarts the member (a binary swapped under a running etcd is a classic way for a fleet
     * to report one version and run another).
     */
    private static final java.util.regex.Pattern RENDERED = java.util.regex.Pattern.compile(
            "(?s)^# Managed by etcdwright.*?\nDescription=etcd member of cluster (\\S+) \\(etcd ([0-9A-Za-z.+-]+),");

    /**
     * The release {@code content} starts, when it is this unit exactly as etcdwright renders it (for
     * its cluster and that release): then what a running etcd was started with is fully told by the
     * release it reports.
     */
    public static java.util.Optional<String> renderedVersion(String content) {
        java.util.regex.Matcher m = RENDERED.matcher(content);
        return m.find() && content.equals(render(m.group(1), m.group(2))) ? java.util.Optional.of(m.group(2))
                : java.util.Optional.empty();
    }

    public static String render(String clusterName, String version) {
        return """
                # Managed by etcdwright: edits here are reverted by the next apply.
                [Unit]
                Description=etcd member of cluster %s (etcd %s, managed by etcdwright)
                Documentation=https://etcd.io/docs/
                After=network-online.target
                Wants=network-online.target

                [Service]
                Type=notify
                User=%s
                Group=%s
                ExecStart=%s/etcd --config-file %s
                Restart=on-failure
                RestartSec=5s
                # A member waiting for its peers during bootstrap must not be killed for being slow.
                TimeoutStartSec=infinity
                LimitNOFILE=65536
                # etcd's docs: give etcd's disk I/O priority over other work on the host.
                IOSchedulingClass=best-effort
                IOSchedulingPriority=0
                Nice=-5

                [Install]
                WantedBy=multi-user.target
                """.formatted(clusterName, version, EtcdLayout.USER, EtcdLayout.USER,
                EtcdLayout.versionDir(version), EtcdLayout.CONFIG_FILE);
    }
}
