package io.etcdwright.modules.service;

import io.etcdwright.engine.facts.KeyValues;
import io.etcdwright.engine.facts.Probe;
import io.etcdwright.modules.EtcdLayout;

/**
 * The etcd unit as systemd sees it.
 *
 * @param activeState  systemd's ActiveState: active, inactive, failed, activating...
 * @param enabled      starts at boot
 * @param restarts     how often systemd restarted it (NRestarts): a crash loop shows here
 * @param systemd      the host runs systemd at all
 * @param startedMicros when the running etcd process started (host clock, µs since the epoch);
 *                      a managed file modified later has not been loaded by it
 * @param needsDaemonReload the unit file on disk differs from what systemd has loaded
 */
public record ServiceFacts(String activeState, boolean enabled, long restarts, boolean systemd, long startedMicros,
                           boolean needsDaemonReload) {
    public static final Probe<ServiceFacts> PROBE = new Probe<>() {
        @Override
        public String name() {
            return "etcd_service";
        }

        @Override
        public String script() {
            String unit = EtcdLayout.UNIT;
            return "[ -d /run/systemd/system ] && echo systemd=1\n"
                    + "echo \"active=$(systemctl is-active " + unit + ")\"\n"
                    + "echo \"enabled=$(systemctl is-enabled " + unit + ")\"\n"
                    + "systemctl show -p NRestarts " + unit + " | sed 's/^NRestarts=/restarts=/'\n"
                    + "systemctl show -p NeedDaemonReload " + unit + " | sed 's/^NeedDaemonReload=/reload=/'\n"
                    + "t=$(systemctl show -p ExecMainStartTimestamp --value --timestamp=us+utc " + unit + ")\n"
                    + "[ -n \"$t\" ] && echo \"started=$(date -d \"$t\" +%s.%6N)\"\n";
        }

        @Override
        public ServiceFacts parse(String output) {
            KeyValues kv = KeyValues.parse(output);
            return new ServiceFacts(kv.getOr("active", "unknown"), "enabled".equals(kv.getOr("enabled", "")),
                    kv.getLong("restarts").orElse(0L), kv.isTrue("systemd"),
                    io.etcdwright.engine.facts.FilesProbe.micros(kv.getOr("started", "0")), kv.isTrue("reload"));
        }
    };

    public boolean running() {
        return "active".equals(activeState) || "activating".equals(activeState) || "reloading".equals(activeState);
    }
}
