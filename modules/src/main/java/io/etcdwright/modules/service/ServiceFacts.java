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
    private static final java.util.List<String> PROPERTIES = java.util.List.of("ActiveState", "UnitFileState", "NRestarts",
            "NeedDaemonReload", "ExecMainStartTimestamp");

    public static final Probe<ServiceFacts> PROBE = new Probe<>() {
        @Override
        public String name() {
            return "etcd_service";
        }

        @Override
        public String script() {
            // systemd is asked once for every probe's units (Probe.units): each call is a process and a
            // D-Bus round trip on the host.
            // ExecMainStartTimestamp is read here, not turned into seconds on the host (two more
            // processes); recordings made before still carry started=SECONDS, which is read first.
            return "[ -d /run/systemd/system ] && echo systemd=1\n"
                    + "unit_show " + EtcdLayout.UNIT + " " + String.join(",", PROPERTIES) + "\n";
        }

        @Override
        public java.util.List<UnitProperties> units() {
            return java.util.List.of(new UnitProperties(EtcdLayout.UNIT, PROPERTIES));
        }

        @Override
        public ServiceFacts parse(String output) {
            KeyValues kv = KeyValues.parse(output);
            return new ServiceFacts(kv.getOr("ActiveState", "unknown"), "enabled".equals(kv.getOr("UnitFileState", "")),
                    kv.getLong("NRestarts").orElse(0L), kv.isTrue("systemd"),
                    kv.get("started").map(io.etcdwright.engine.facts.FilesProbe::micros)
                            .orElseGet(() -> startMicros(kv.getOr("ExecMainStartTimestamp", ""))),
                    kv.isTrue("NeedDaemonReload"));
        }
    };

    /**
     * "Fri 2026-11-27 23:50:01.123456 UTC", as {@code systemctl show --timestamp=us+utc} prints it, to
     * microseconds since the epoch; 0 when empty (never started) or not in that form.
     */
    static long startMicros(String timestamp) {
        String[] parts = timestamp.strip().split(" ");
        if (parts.length != 4 || !parts[3].equals("UTC")) {
            return 0;
        }
        try {
            java.time.Instant at = java.time.LocalDateTime.parse(parts[1] + "T" + parts[2]).toInstant(java.time.ZoneOffset.UTC);
            return at.getEpochSecond() * 1_000_000 + at.getNano() / 1_000;
        } catch (java.time.format.DateTimeParseException e) {
            return 0;
        }
    }

    public boolean running() {
        return "active".equals(activeState) || "activating".equals(activeState) || "reloading".equals(activeState);
    }
}
