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
 */
public record ServiceFacts(String activeState, boolean enabled, long restarts, boolean systemd) {
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
                    + "systemctl show -p NRestarts " + unit + " | sed 's/^NRestarts=/restarts=/'\n";
        }

        @Override
        public ServiceFacts parse(String output) {
            KeyValues kv = KeyValues.parse(output);
            return new ServiceFacts(kv.getOr("active", "unknown"), "enabled".equals(kv.getOr("enabled", "")),
                    kv.getLong("restarts").orElse(0L), kv.isTrue("systemd"));
        }
    };

    public boolean running() {
        return "active".equals(activeState) || "activating".equals(activeState) || "reloading".equals(activeState);
    }
}
