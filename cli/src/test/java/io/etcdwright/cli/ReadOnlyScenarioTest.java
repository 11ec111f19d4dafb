package io.etcdwright.cli;

import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Drift;
import io.etcdwright.engine.plan.Plan;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A read-only runner (the CA certificate and a reader certificate, no CA key) planning from recorded
 * facts: what needs no key is judged as on a workstation, a certificate due is drift (never a refusal,
 * never an issue), and the plan says what it could not judge.
 */
class ReadOnlyScenarioTest {
    @TempDir
    Path home;

    private PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    @Test
    void aConvergedClusterHasNothingToDoAndThePlanSaysWhatItCouldNotJudge() {
        Plan plan = scenarios.planReadOnly(new Scenario("converged", "three"));
        assertEquals(List.of(), plan.refusals(), plan.refusals().toString());
        assertEquals(List.of(), plan.steps(), plan.steps().toString());
        assertEquals(List.of(), plan.drift());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("read-only (a reader certificate and the CA certificate,"
                + " no CA key): not judged here: the admin and kube-apiserver client certificates")), plan.warnings().toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("read-only: the first member certificate to expire is")),
                plan.warnings().toString());
    }

    @Test
    void aMembersDriftedConfigIsAChangeTheRunnerReports() {
        Plan plan = scenarios.planReadOnly(new Scenario("config-drift", "three"));
        assertEquals(List.of(), plan.refusals(), plan.refusals().toString());
        assertTrue(plan.differs(), "drift makes plan --detailed-exitcode exit 2");
        assertTrue(plan.steps().stream().anyMatch(s -> s.summary().contains("etcd.conf.yml") || s.id().contains("config")),
                plan.steps().toString());
        assertTrue(plan.steps().stream().noneMatch(s -> s.id().contains("pki")), "nothing is issued: " + plan.steps());
    }

    @Test
    void certificatesDueAreDriftNotRefusalsAndNothingIsIssued() {
        // 340 days after the recording: every 365-day certificate is inside renewBeforeDays (30).
        Plan plan = scenarios.planReadOnly(new Scenario("converged", "three").after(Duration.ofDays(340)));
        assertEquals(List.of(), plan.refusals(), plan.refusals().toString());
        assertEquals(List.of(), plan.steps(), plan.steps().toString());
        List<String> subjects = plan.drift().stream().map(Drift::subject).toList();
        assertEquals(List.of("member h1 (host h1)", "member h2 (host h2)", "member h3 (host h3)"), subjects);
        Drift h1 = plan.drift().get(0);
        assertEquals("certificate-due", h1.kind());
        assertTrue(h1.what().startsWith("server (/etc/etcd/pki/server.crt): expires in 24 days (renews 30 days before expiry)"),
                h1.what());
        assertTrue(h1.whatToDo().contains("from a workstation that holds the PKI"), h1.whatToDo());
        assertTrue(plan.differs());
    }
}
