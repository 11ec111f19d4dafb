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
