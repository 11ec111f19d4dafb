package io.etcdwright.engine.spec;

import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.source.Fixtures;
import io.etcdwright.engine.source.InvalidInputException;
import io.etcdwright.engine.source.Problem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The spec's automation section: its defaults, its windows as the policy reads them, and every field refused where written. */
class AutomationTest {
    private static final String INVENTORY = """
            all:
              children:
                etcd:
                  hosts:
                    h1: {ansible_host: 10.77.0.11}
            """;
    private static final String SPEC = """
            cluster:
              name: demo
            etcd:
              version: 3.5.16
            """;

    @TempDir
    Path dir;

    private Automation load(String automation) {
        return DesiredStateLoader.load(Fixtures.write(dir, "hosts.yaml", INVENTORY), Fixtures.write(dir, "demo.yaml", SPEC + automation),
                SupportFloorRules.RULES).spec().automation();
    }

    private List<String> problems(String automation) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> load(automation));
        return e.problems().stream().map(Problem::toString).map(line -> line.replace(dir + "/", "")).toList();
    }

    @Test
    void withoutTheSectionRoutineAndRepairRunAfterTenMinutesEveryThirtySeconds() {
        Automation defaults = load("");
        assertEquals(Automation.DEFAULT, defaults);
        assertEquals(Set.of(SafetyClass.ROUTINE, SafetyClass.REPAIR), defaults.allow());
        assertEquals(Duration.ofMinutes(10), defaults.repairAfter());
        assertEquals(Duration.ofSeconds(30), defaults.interval());
        assertEquals(Duration.ofMinutes(15), defaults.stepDeadline());
        assertEquals(Automation.DEFAULT, load("automation: {}\n"));
    }

    @Test
    void everyFieldIsReadAndAWindowOpensAtItsCronTimeForItsDuration() {
        Automation a = load("""
                automation:
                  allow: [routine, repair, change]
                  repairAfterMinutes: 2
                  intervalSeconds: 5
                  stepDeadlineMinutes: 30
                  windows:
                    - kind: deny
                      schedule: "0 22 * * 5"
                      durationMinutes: 3600
                    - kind: allow
                      schedule: "0 2 * * *"
                      durationMinutes: 120
                      classes: [change]
                """);
        assertEquals(Set.of(SafetyClass.ROUTINE, SafetyClass.REPAIR, SafetyClass.CHANGE), a.allow());
        assertEquals(Duration.ofMinutes(2), a.repairAfter());
        assertEquals(Duration.ofSeconds(5), a.interval());
        assertEquals(Duration.ofMinutes(30), a.stepDeadline());
        Automation.Window weekend = a.windows().get(0);
        assertEquals(Automation.Kind.DENY, weekend.kind());
        assertEquals(Set.of(SafetyClass.CHANGE, SafetyClass.REPAIR), weekend.classes());
        // 2026-11-27 is a Friday: from 22:00 UTC for 60 hours, to Monday 10:00.
        Instant friday = Instant.parse("2026-11-27T22:00:00Z");
        assertEquals(Optional.empty(), weekend.openedAt(friday.minusSeconds(1)));
        assertEquals(Optional.of(friday), weekend.nextOpening(friday.minusSeconds(1)));
        assertEquals(Optional.of(friday), weekend.openedAt(friday));
        assertEquals(Optional.of(Instant.parse("2026-11-30T10:00:00Z")), weekend.endsAfter(Instant.parse("2026-11-29T12:00:00Z")));
        assertEquals(Optional.empty(), weekend.openedAt(Instant.parse("2026-11-30T10:00:00Z")));
        assertEquals(Set.of(SafetyClass.CHANGE), a.windows().get(1).classes());
    }

    @Test
    void neverAnUnknownClassARoutineWindowAndACronThatDoesNotParseAreRefusedAtTheirField() {
        assertEquals(List.of("demo.yaml:6:20: error: automation.allow[1]: never cannot be allowed: its steps (a restore, a minor"
                        + " downgrade, a teardown) run only when a person applies them; allow routine, repair or change"),
                problems("automation:\n  allow: [routine, never]\n"));
        List<String> unknown = problems("automation:\n  allow: [sometimes]\n");
        assertEquals(1, unknown.size(), unknown.toString());
        assertEquals(true, unknown.get(0).startsWith("demo.yaml:6:11: error: automation.allow[0]: must be one of"), unknown.get(0));
        String window = "automation:\n  windows:\n    - kind: deny\n      schedule: \"%s\"\n      durationMinutes: 60\n";
        List<String> cron = problems(String.format(window, "0 22 * *"));
        assertEquals(1, cron.size(), cron.toString());
        assertEquals(true, cron.get(0).startsWith("demo.yaml:8:17: error: automation.windows[0].schedule: is not a cron expression"
                + " of five fields"), cron.get(0));
        assertEquals(true, problems(String.format(window, "61 * * * *")).get(0).contains("windows[0].schedule: is not a cron"),
                "a minute past 59");
        assertEquals(List.of("demo.yaml:10:17: error: automation.windows[0].classes[0]: a window governs only change and repair:"
                        + " routine always runs (it only puts the spec back); got \"routine\""),
                problems(String.format(window, "0 22 * * 5") + "      classes: [routine]\n"));
    }

    @Test
    void tooShortARepairAfterOrIntervalAndAWindowWithoutDurationAreRefused() {
        String repair = problems("automation:\n  repairAfterMinutes: 0\n").get(0);
        assertEquals(true, repair.startsWith("demo.yaml:6:23: error: automation.repairAfterMinutes: "), repair);
        String interval = problems("automation:\n  intervalSeconds: 4\n").get(0);
        assertEquals(true, interval.startsWith("demo.yaml:6:20: error: automation.intervalSeconds: "), interval);
        String window = problems("automation:\n  windows:\n    - kind: deny\n      schedule: \"0 22 * * 5\"\n").get(0);
        assertEquals(true, window.startsWith("demo.yaml:7:7: error: automation.windows[0].durationMinutes: a window needs kind (allow or deny), schedule"), window);
    }
}
