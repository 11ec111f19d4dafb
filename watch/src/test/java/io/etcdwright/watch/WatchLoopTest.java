package io.etcdwright.watch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.etcdwright.engine.plan.Plan;
import io.etcdwright.engine.plan.SafetyClass;
import io.etcdwright.engine.plan.Step;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The loop's own parts, without hosts: its memory between cycles, its event log, its metrics. */
class WatchLoopTest {
    static final Instant T0 = Instant.parse("2026-12-02T03:00:00Z");
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aMemberDownKeepsTheTimeItWasFirstSeenDownAndIsForgottenOnceUp() {
        Plan plan = new Plan("c", List.of(), List.of(), List.of());
        Quorum h3Down = new Quorum(Set.of("h1", "h2", "h3"), Set.of("h1", "h2"));
        Memory first = Watcher.remember(Memory.EMPTY, plan, h3Down, List.of("h1", "h2", "h3"), new Suspensions.Read.NotSuspended(), T0);
        assertEquals(Map.of("h3", T0), first.downSince());
        Memory later = Watcher.remember(first, plan, h3Down, List.of("h1", "h2", "h3"), new Suspensions.Read.NotSuspended(),
                T0.plusSeconds(90));
        assertEquals(Map.of("h3", T0), later.downSince(), "the first time it was seen down counts, not the latest");
        Quorum allUp = new Quorum(Set.of("h1", "h2", "h3"), Set.of("h1", "h2", "h3"));
        assertEquals(Map.of(), Watcher.remember(later, plan, allUp, List.of("h1", "h2", "h3"), new Suspensions.Read.NotSuspended(),
                T0.plusSeconds(120)).downSince());
    }

    @Test
    void aFailedStepIsRememberedWhileThePlanHasItUnderTheSameFacts() {
        Step start = PolicyTest.step("h2", "start", SafetyClass.ROUTINE);
        Plan plan = new Plan("c", List.of(start), List.of(), List.of());
        Memory failed = new Memory(Map.of(), List.of(Memory.FailedStep.of(plan, start, T0, "boom")), Optional.empty());
        Quorum q = new Quorum(Set.of("h1", "h2"), Set.of("h1"));
        assertEquals(1, Watcher.remember(failed, plan, q, List.of("h1", "h2"), new Suspensions.Read.NotSuspended(), T0)
                .failures().size());
        Step moved = Step.on("h2", "test", "start").kind(io.etcdwright.engine.plan.ChangeKind.ACTION).safety(SafetyClass.ROUTINE)
                .summary("start").observed("other-facts").does(ctx -> io.etcdwright.engine.plan.Outcome.CHANGED);
        Plan changed = new Plan("c", List.of(moved), List.of(), List.of());
        assertEquals(List.of(), Watcher.remember(failed, changed, q, List.of("h1", "h2"), new Suspensions.Read.NotSuspended(), T0)
                .failures(), "the facts changed: the step may run again");
    }

    @Test
    void aSuspensionNobodyCouldReadIsTheLastOneKnown() {
        Plan plan = new Plan("c", List.of(), List.of(), List.of());
        Quorum q = new Quorum(Set.of("h1"), Set.of());
        Suspension s = new Suspension("alice@ops1", T0, "disk swap");
        Memory suspended = Watcher.remember(Memory.EMPTY, plan, q, List.of("h1"), new Suspensions.Read.Suspended(s), T0);
        assertEquals(Optional.of(s), suspended.suspension());
        assertEquals(Optional.of(s), Watcher.remember(suspended, plan, q, List.of("h1"), new Suspensions.Read.Unknown("down"), T0)
                .suspension());
        assertEquals(Optional.empty(), Watcher.remember(suspended, plan, q, List.of("h1"), new Suspensions.Read.NotSuspended(), T0)
                .suspension());
    }

    @Test
    void aSuspensionRoundTripsThroughTheValueStoredInEtcd() {
        Suspension s = new Suspension("bob@ws \"2\"", T0, "kernel; 'quoted'");
        assertEquals(Optional.of(s), Suspension.parse(s.toJson()));
        assertEquals(Optional.empty(), Suspension.parse("not json"));
        assertTrue(s.describe(T0.plusSeconds(3 * 3600)).contains("(3 h ago): kernel; 'quoted'"), s.describe(T0));
    }

    @Test
    void theEventLogIsOneJsonObjectALineAppendedAcrossRestarts(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("events.jsonl");
        try (EventLog log = EventLog.appendingTo(file)) {
            log.write(new WatchEvent(T0, "c-1", "c", "h2/start", "routine", WatchEvent.Outcome.CHANGED, 2113, "", ""));
        }
        try (EventLog log = EventLog.appendingTo(file)) {
            log.write(new WatchEvent(T0, "c-2", "c", "h3/etcd-version", "change", WatchEvent.Outcome.HELD, 0,
                    "change steps are not allowed", "etcdwright apply -i a -f b"));
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size(), lines.toString());
        JsonNode ran = JSON.readTree(lines.get(0));
        assertEquals("changed", ran.path("outcome").asText());
        assertEquals(2113, ran.path("millis").asLong());
        assertEquals("2026-12-02T03:00:00Z", ran.path("time").asText());
        assertFalse(ran.has("reason") || ran.has("command"), lines.get(0));
        JsonNode held = JSON.readTree(lines.get(1));
        assertEquals("held", held.path("outcome").asText());
        assertEquals(0, held.path("millis").asLong());
        assertTrue(held.has("millis"), lines.get(1));
        assertEquals("etcdwright apply -i a -f b", held.path("command").asText());
    }

    @Test
    void theMetricsAreServedInPrometheusTextFormat() throws Exception {
        try (WatchMetrics metrics = new WatchMetrics()) {
            metrics.serve(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            metrics.cycleEnded("prod", "acted", T0, true, Duration.ofSeconds(30));
            metrics.action("prod", "routine", "changed");
            metrics.held("prod", Map.of("change", 2), Optional.of(T0));
            metrics.condition("prod", "held");
            metrics.repaired("prod", "routine", Duration.ofSeconds(12));
            HttpResponse<String> got = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + metrics.port() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, got.statusCode());
            String body = got.body();
            assertTrue(body.contains("etcdwright_watch_cycles_total{cluster=\"prod\",result=\"acted\"} 1.0"), body);
            assertTrue(body.contains("etcdwright_watch_actions_total{cluster=\"prod\",outcome=\"changed\",safety=\"routine\"} 1.0"), body);
            assertTrue(body.contains("etcdwright_watch_held_steps{cluster=\"prod\",safety=\"change\"} 2.0"), body);
            assertTrue(body.contains("etcdwright_watch_held_since_timestamp_seconds{cluster=\"prod\"} 1.7961804E9"), body);
            assertTrue(body.contains("etcdwright_watch_condition{cluster=\"prod\",condition=\"held\"} 1.0"), body);
            assertTrue(body.contains("etcdwright_watch_condition{cluster=\"prod\",condition=\"healthy\"} 0.0"), body);
            assertTrue(body.contains("etcdwright_watch_interval_seconds{cluster=\"prod\"} 30.0"), body);
            assertTrue(body.contains("etcdwright_watch_detection_to_repair_seconds_bucket{cluster=\"prod\",safety=\"routine\",le=\"15.0\"} 1"),
                    body);
        }
    }
}
