package io.etcdwright.modules.membership;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What counts as healthy for apply, from a status as the client library reports it. */
class HealthTest {
    private static MemberStatus member(String name, String url, boolean healthy, Optional<String> error, boolean learner) {
        return new MemberStatus(name, "1", List.of(url), List.of(), learner, false, Optional.empty(), OptionalLong.empty(),
                OptionalLong.empty(), OptionalLong.empty(), healthy, error);
    }

    @Test
    void everyExpectedMemberHealthyWithQuorumIsHealthy() {
        ClusterStatus status = new ClusterStatus(List.of(member("m1", "https://10.0.0.1:2379", true, Optional.empty(), false),
                member("m2", "https://[fd00::2]:2379", true, Optional.empty(), false)), Optional.of("c"), true);
        assertEquals(Optional.empty(), Health.problem(status, List.of("https://10.0.0.1:2379", "https://[FD00::2]:2379")));
    }

    @Test
    void namesEveryMemberThatIsNotHealthyAndWhy() {
        ClusterStatus status = new ClusterStatus(List.of(
                member("m1", "https://10.0.0.1:2379", true, Optional.empty(), false),
                member("m2", "https://10.0.0.2:2379", false, Optional.of("connection refused"), false),
                member("m3", "https://10.0.0.3:2379", true, Optional.of("reports: NOSPACE"), false),
                member("l1", "https://10.0.0.5:2379", true, Optional.of("learner: no Status"), true)), Optional.of("c"), false);
        String problem = Health.problem(status, List.of("https://10.0.0.1:2379", "https://10.0.0.2:2379",
                "https://10.0.0.3:2379", "https://10.0.0.4:2379", "https://10.0.0.5:2379")).orElseThrow();
        assertEquals("member m2 at https://10.0.0.2:2379: connection refused; member m3 at https://10.0.0.3:2379 reports: NOSPACE; "
                + "https://10.0.0.4:2379: no member of the cluster advertises this client URL (not started, or not a member); "
                + "the cluster has no quorum (a linearizable read did not go through)", problem);
        assertTrue(Health.problem(status, List.of("https://10.0.0.1:2379")).orElseThrow().contains("no quorum"));
    }

    @Test
    void eachMembersOwnCheckIsWhatItsVersionServes() {
        // /readyz for a voter where the catalogue says the version has it (3.4.29, 3.5.11, every 3.6 and 3.7).
        assertEquals(Optional.of(EtcdHttp.ReadCheck.READYZ), Health.readCheck(Optional.of("3.5.16"), false));
        assertEquals(Optional.of(EtcdHttp.ReadCheck.READYZ), Health.readCheck(Optional.of("3.4.29"), false));
        assertEquals(Optional.of(EtcdHttp.ReadCheck.READYZ), Health.readCheck(Optional.of("3.6.0"), false));
        // Before it, and when the member did not say: the gateway's linearizable read, on every version.
        assertEquals(Optional.of(EtcdHttp.ReadCheck.LINEARIZABLE_RANGE), Health.readCheck(Optional.of("3.5.10"), false));
        assertEquals(Optional.of(EtcdHttp.ReadCheck.LINEARIZABLE_RANGE), Health.readCheck(Optional.of("3.4.23"), false));
        assertEquals(Optional.of(EtcdHttp.ReadCheck.LINEARIZABLE_RANGE), Health.readCheck(Optional.empty(), false));
        // A learner: /livez (its /readyz answers 503 from 3.5.19, its non_learner check), else its Status alone.
        assertEquals(Optional.of(EtcdHttp.ReadCheck.LIVEZ), Health.readCheck(Optional.of("3.5.19"), true));
        assertEquals(Optional.of(EtcdHttp.ReadCheck.LIVEZ), Health.readCheck(Optional.of("3.7.1"), true));
        assertEquals(Optional.empty(), Health.readCheck(Optional.of("3.4.23"), true));
    }

    @Test
    void aFailedReadinessCheckIsNamedInEtcdsWords() {
        // /readyz's 503 answer, as etcd 3.5 words it.
        String body = "[+]data_corruption ok\n[+]serializable_read ok\n[-]linearizable_read failed: etcdserver: request timed out\n"
                + "readyz check failed\n";
        assertEquals("/readyz says linearizable_read failed: etcdserver: request timed out",
                EtcdHttp.failedChecks(EtcdHttp.ReadCheck.READYZ, 503, body));
        assertEquals("/livez says HTTP 404 404 page not found", EtcdHttp.failedChecks(EtcdHttp.ReadCheck.LIVEZ, 404, "404 page not found\n"));
    }
}
