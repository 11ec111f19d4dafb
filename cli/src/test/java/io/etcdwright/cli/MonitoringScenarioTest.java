package io.etcdwright.cli;

import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Step;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * monitoring in the spec, planned from recorded facts: the certificate metrics' job installed on
 * every member (and nothing else touched), and written again after the steps that renew
 * certificates, in the same apply, so that the next one has nothing to do.
 */
class MonitoringScenarioTest {
    @TempDir
    Path home;
    PlannerScenarios scenarios;
    String spec;

    @BeforeEach
    void setUp() throws Exception {
        scenarios = new PlannerScenarios(home);
        Path file = home.resolve("three-monitored.yaml");
        Files.writeString(file, Files.readString(PlannerScenarios.DIR.resolve("three.yaml")) + "monitoring: {}\n");
        spec = file.toAbsolutePath().toString().replaceFirst("\\.yaml$", "");
    }

    @Test
    void monitoringInstallsTheCertificateMetricsJobOnEveryMemberAndNothingElse() {
        Plan plan = scenarios.plan(new Scenario("converged", spec));
        assertEquals(List.of("h1/certificate-metrics", "h2/certificate-metrics", "h3/certificate-metrics"),
                PlannerScenarios.shape(plan));
        Step h1 = plan.steps().get(0);
        assertEquals("not installed", h1.reason());
        assertTrue(h1.summary().contains("/var/lib/prometheus/node-exporter/etcdwright_certificates.prom"), h1.summary());
    }

    @Test
    void renewedCertificatesAreWrittenAgainInTheSameApply() {
        Plan plan = scenarios.plan(new Scenario("converged", spec).after(Duration.ofDays(340)));
        List<String> shape = PlannerScenarios.shape(plan);
        for (String h : List.of("h1", "h2", "h3")) {
            assertTrue(shape.contains(h + "/certificate-metrics-after-pki <- " + h + "/certificates, " + h + "/certificate-metrics"),
                    shape.toString());
        }
    }

    @Test
    void withoutMonitoringNothingIsPlanned() {
        assertEquals(List.of(), PlannerScenarios.shape(scenarios.plan(new Scenario("converged", "three"))));
    }
}
