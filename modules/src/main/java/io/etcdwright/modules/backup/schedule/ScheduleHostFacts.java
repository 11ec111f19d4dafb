package io.etcdwright.modules.backup.schedule;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.facts.KeyValues;
import io.etcdwright.engine.facts.LaterProbe;
import io.etcdwright.engine.facts.Probe;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * What a member's host has for scheduled backups: the tools the backup script runs, the timer as
 * systemd sees it, and what the script's last runs left in its state directory.
 *
 * @param probed        false for facts recorded before this probe existed: nothing is known
 * @param tools         the tools found on the PATH (curl, openssl, gzip, sftp, ssh, bash) and
 *                      etcdctl/etcdutl where etcdwright links them
 * @param timerEnabled  the timer starts at boot
 * @param timerActive   the timer is running (waiting for its next tick)
 * @param serviceResult systemd's Result of the last run of the service ("success", "exit-code", ...)
 * @param lastRun       the last run's record (any member runs; followers record "not-leader")
 * @param lastSuccess   the last run that wrote a backup, from this host
 * @param failedRuns    runs that failed since the last success on this host
 */
public record ScheduleHostFacts(boolean probed, Set<String> tools, boolean timerEnabled, boolean timerActive,
                                String serviceResult, boolean needsDaemonReload, Optional<Run> lastRun,
                                Optional<Run> lastSuccess, int failedRuns) {
    public ScheduleHostFacts {
        tools = Set.copyOf(tools);
    }

    /**
     * One run as the script recorded it.
     *
     * @param result  success, failed or not-leader
     * @param message what happened, for a person ("failed while uploading ...: HTTP 403 AccessDenied")
     * @param name    the backup's name (success)
     */
    public record Run(String result, Instant time, String member, String message, String name, long objectSize) {
    }

    public boolean has(String tool) {
        return tools.contains(tool);
    }

    private static final String SCRIPT = """
            echo probed=1
            for t in bash curl openssl gzip sftp ssh; do command -v "$t" >/dev/null 2>&1 && echo "tool_$t=1"; done
            for t in etcdctl etcdutl; do [ -x "/usr/local/bin/$t" ] && echo "tool_$t=1"; done
            unit_show "$1" UnitFileState,ActiveState timer_
            unit_show "$2" Result,NeedDaemonReload service_
            for f in last-run last-success; do
              [ -f "$3/$f.json" ] && { printf '%s=' "$f"; head -c 4096 "$3/$f.json" | base64 -w0; echo; }
            done
            [ -f "$3/failed-runs" ] && echo "failed_runs=$(head -c 20 "$3/failed-runs")"
            true
            """;

    public static final Probe<ScheduleHostFacts> PROBE = probe("backup_schedule", ScheduleLayout.JOB);

    /**
     * The probe of one timer job's timer, service and run records, under {@code name}; a probe of
     * its own (a {@link LaterProbe}), so that facts recorded before it existed still load.
     */
    public static Probe<ScheduleHostFacts> probe(String name, io.etcdwright.modules.timer.TimerJob job) {
        return new LaterProbe<>(new Probe<>() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String script() {
                return SCRIPT;
            }

            @Override
            public List<String> arguments() {
                return List.of(job.timer(), job.service(), job.stateDir());
            }

            @Override
            public List<UnitProperties> units() {
                return List.of(new UnitProperties(job.timer(), List.of("UnitFileState", "ActiveState")),
                        new UnitProperties(job.service(), List.of("Result", "NeedDaemonReload")));
            }

            @Override
            public ScheduleHostFacts parse(String output) {
                return ScheduleHostFacts.parse(output);
            }
        }, "");
    }

    static ScheduleHostFacts parse(String output) {
        KeyValues kv = KeyValues.parse(output);
        Set<String> tools = new LinkedHashSet<>();
        kv.values().forEach((k, v) -> {
            if (k.startsWith("tool_") && v.equals("1")) {
                tools.add(k.substring(5));
            }
        });
        int failed = kv.getLong("failed_runs").map(Long::intValue).orElse(0);
        return new ScheduleHostFacts(kv.isTrue("probed"), tools, "enabled".equals(kv.getOr("timer_UnitFileState", "")),
                "active".equals(kv.getOr("timer_ActiveState", "")), kv.getOr("service_Result", ""),
                kv.isTrue("service_NeedDaemonReload"), run(kv.get("last-run")), run(kv.get("last-success")), failed);
    }

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A record the script wrote; a damaged one reads as none (the next run writes it again). */
    static Optional<Run> run(Optional<String> base64) {
        if (base64.isEmpty()) {
            return Optional.empty();
        }
        try {
            JsonNode o = JSON.readTree(new String(Base64.getDecoder().decode(base64.get()), StandardCharsets.UTF_8));
            return Optional.of(new Run(o.path("result").asText(""), Instant.parse(o.path("time").asText("")),
                    o.path("member").asText(""), o.path("message").asText(""), o.path("name").asText(""),
                    o.path("objectSize").asLong(0)));
        } catch (IOException | IllegalArgumentException | DateTimeParseException e) {
            return Optional.empty();
        }
    }
}
