package io.etcdwright.cli;

import io.etcdwright.cli.PlannerScenarios.Scenario;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.Refusal;
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
 * Trust-only (tls.pki.ca without its key) planned from recorded facts: what needs no certificate
 * plans as usual, and whatever would need one issued is refused, naming it and what to do.
 */
class TrustOnlyScenarioTest {
    @TempDir
    Path home;

    private PlannerScenarios scenarios;

    @BeforeEach
    void setUp() {
        scenarios = new PlannerScenarios(home);
    }

    @Test
    void aConvergedClusterOperatedTrustOnlyNeedsNothingAndWarnsOfTheFirstExpiry() {
        Plan plan = scenarios.plan(new Scenario("converged", "three-trust-only"));
        assertEquals(List.of(), plan.refusals());
        assertEquals(List.of(), plan.steps());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.contains("trust-only (a CA certificate without its key)")),
                plan.warnings().toString());
        assertTrue(plan.warnings().stream().anyMatch(w -> w.startsWith("trust-only: etcdwright renews no certificate; the first to"
                + " expire is ")), plan.warnings().toString());
    }

    @Test
    void certificatesDueForRenewalAreRefusedNotIssued() {
        // 340 days after the recording: every 365-day certificate is inside renewBeforeDays (30).
        Plan plan = scenarios.plan(new Scenario("converged", "three-trust-only").after(Duration.ofDays(340)));
        assertEquals(List.of(), plan.steps());
        List<String> subjects = plan.refusals().stream().map(Refusal::subject).toList();
        assertTrue(subjects.get(0).startsWith("admin client certificate "), subjects.toString());
        assertEquals(List.of("member h1 (host h1)", "member h2 (host h2)", "member h3 (host h3)"), subjects.subList(1, 4));
        Refusal h1 = plan.refusals().get(1);
        assertEquals("trust-only-certificate", h1.kind());
        assertTrue(h1.what().startsWith("trust-only (tls.pki.ca has no key), so etcdwright cannot issue: server"
                + " (/etc/etcd/pki/server.crt): expires in 24 days (renews 30 days before expiry); peer"), h1.what());
        assertTrue(h1.whatToDo().startsWith("give the CA key (tls.pki.ca.key) and etcdwright issues it, or place certificates"
                + " you issued from the cluster's CA, each with its key, at /etc/etcd/pki/server.crt (key /etc/etcd/pki/server.key),"),
                h1.whatToDo());
        assertTrue(plan.refusals().get(0).what().contains("etcdwright's own connection"), plan.refusals().get(0).what());
    }

    @Test
    void aMemberJoiningWouldNeedCertificatesIssuedAndIsRefused() {
        Plan plan = scenarios.plan(new Scenario("converged", "four-trust-only"));
        assertEquals(List.of(), plan.steps());
        assertEquals(1, plan.refusals().size(), plan.refusals().toString());
        Refusal h4 = plan.refusals().get(0);
        assertEquals("member h4 (host h4)", h4.subject());
        assertEquals("trust-only (tls.pki.ca has no key), so etcdwright cannot issue: server: missing at"
                + " /etc/etcd/pki/server.crt (a member joining needs certificates issued for it); peer: missing at"
                + " /etc/etcd/pki/peer.crt (a member joining needs certificates issued for it); healthcheck-client: missing"
                + " at /etc/etcd/pki/healthcheck-client.crt (a member joining needs certificates issued for it)", h4.what());
    }

    @Test
    void aCertificateOfAnotherCaIsRefused() throws Exception {
        Path pki = scenarios.pki(PlannerScenarios.Pki.PKI_35);
        // The admin client replaced by one of another CA: what an operator could have given by mistake.
        Path other = home.resolve("other-ca");
        io.etcdwright.modules.pki.CertificateAuthority ca = io.etcdwright.modules.pki.CertificateAuthority.generate("another CA",
                io.etcdwright.modules.pki.KeyAlgorithm.fromName("ecdsa-p256"), Duration.ofDays(3650),
                PlannerScenarios.clockOf(new Scenario("converged", "three-trust-only")));
        ca.writeTo(other);
        Files.copy(other.resolve("ca.crt"), pki.resolve("clients/admin.crt"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Plan plan = scenarios.plan(new Scenario("converged", "three-trust-only"), pki, hosts -> hosts);
        assertEquals(1, plan.refusals().size(), plan.refusals().toString());
        assertTrue(plan.refusals().get(0).what().endsWith("signed by another CA; lacks clientAuth usage"),
                plan.refusals().get(0).what());
    }
}
