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
}
