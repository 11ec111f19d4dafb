package io.etcdwright.cli;

import io.etcdwright.engine.plan.ChangeKind;
import io.etcdwright.engine.plan.Condition;
import io.etcdwright.engine.plan.FileDiff;
import io.etcdwright.engine.plan.Outcome;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
import io.etcdwright.engine.plan.Step;
import io.etcdwright.engine.plan.StepContext;
import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What an operator reads: steps grouped by host, their conditions, diffs, refusals; and the JSON. */
class PlanPrinterTest {
    static Condition named(String what) {
        return new Condition() {
            @Override
            public String description() {
                return what;
            }

            @Override
            public void verify(StepContext context) {
            }
        };
    }

    static String text(Plan plan, boolean diff) {
        StringWriter out = new StringWriter();
        PlanPrinter.text(plan, diff, new PrintWriter(out, true));
        return out.toString();
    }

    static Plan restartPlan() {
        Step config = Step.on("h1", "config", "config-file").safety(io.etcdwright.engine.plan.SafetyClass.ROUTINE).kind(ChangeKind.UPDATE).summary("write /etc/etcd/etcd.conf.yml")
                .reason("content differs").diff(new FileDiff("/etc/etcd/etcd.conf.yml", "a: 1\nb: 2\n", "a: 1\nb: 3\n"))
                .does(ctx -> Outcome.CHANGED);
        Step restart = Step.on("h1", "service", "restart").safety(io.etcdwright.engine.plan.SafetyClass.CHANGE).kind(ChangeKind.ACTION).summary("restart etcd").reason("config changed")
                .after(config).requires(named("every member other than h1 healthy"))
                .readyWhen(named("all 3 members healthy within 120 s")).does(ctx -> Outcome.CHANGED);
        return new Plan("three", List.of(config, restart), List.of(), List.of("etcd 3.5.16 is old"));
    }

    /** Each step's safety class leads its line, in one column, and the count says how many of each. */
    @Test
    void stepsAreGroupedByHostWithTheirConditionsAndACount() {
        assertEquals(String.join("\n",
                "warning: etcd 3.5.16 is old",
                "h1:",
                "  [routine] ~ write /etc/etcd/etcd.conf.yml (content differs)",
                "  [change]  > restart etcd (config changed)",
                "      requires: every member other than h1 healthy",
                "      ready when: all 3 members healthy within 120 s",
                "Plan: 2 steps (1 update, 1 action; 1 routine, 1 change).", ""), text(restartPlan(), false));
    }

    @Test
    void aDiffShowsOnlyTheLinesThatChange() {
        String shown = text(restartPlan(), true);
        assertTrue(shown.contains("      -b: 2\n      +b: 3\n"), shown);
        assertFalse(shown.contains("-a: 1"), shown);
    }

    @Test
    void everyRefusalIsPrintedWithWhatToDoAndNoStep() {
        Plan refused = Plan.refused("three", List.of(
                new Refusal("unreachable-host", "h2", "unreachable (connection refused)", "bring it back"),
                new Refusal("no-quorum", "cluster three", "2 of 3 voters are down (h2, h3)", "start them")), List.of());
        assertEquals(String.join("\n",
                "Cannot plan cluster three: 2 reasons, nothing was planned:",
                "  - h2: unreachable (connection refused).",
                "    What to do: bring it back.",
                "  - cluster three: 2 of 3 voters are down (h2, h3).",
                "    What to do: start them.", ""), text(refused, false));
    }

    @Test
    void jsonCarriesStepsConditionsRefusalsAndTheFingerprint() throws Exception {
        var json = new com.fasterxml.jackson.databind.ObjectMapper().readTree(PlanPrinter.json(restartPlan()));
        assertEquals("three", json.path("cluster").asText());
        assertTrue(json.path("changes").asBoolean());
        assertEquals(restartPlan().fingerprint(), json.path("fingerprint").asText());
        var restart = json.path("steps").path(1);
        assertEquals("h1/restart", restart.path("id").asText());
        assertEquals("h1/config-file", restart.path("after").path(0).asText());
        assertEquals("change", restart.path("safety").asText());
        assertEquals("routine", json.path("steps").path(0).path("safety").asText());
        assertEquals("every member other than h1 healthy", restart.path("requires").path(0).asText());
        assertEquals("all 3 members healthy within 120 s", restart.path("ready_when").path(0).asText());
        assertTrue(restart.path("preconditions").isMissingNode(), "conditions are shown by description only: " + restart);
        assertEquals(0, json.path("refusals").size());
        var refused = new com.fasterxml.jackson.databind.ObjectMapper().readTree(PlanPrinter.json(Plan.refused("three",
                List.of(new Refusal("no-quorum", "cluster three", "2 of 3 voters are down", "start them")), List.of())));
        assertEquals("no-quorum", refused.path("refusals").path(0).path("kind").asText());
        assertEquals("start them", refused.path("refusals").path(0).path("what_to_do").asText());
    }
}
