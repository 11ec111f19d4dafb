package io.etcdwright.rollout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.etcdwright.run.ReviewedPlan;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * What a rollout is and how far it got, as kept between processes ({@link RolloutRecords}): the
 * clusters in their waves, each one's state, and the rollout's settings, so that {@code resume}
 * on any workstation that reaches the record walks the same waves with the same gate and budget.
 * No secret is in it: names, paths as the operator gave them, states and error messages.
 *
 * @param id       the rollout's name ({@code rollout status ID})
 * @param state    where the rollout as a whole is
 * @param reason   why it stopped, paused or was aborted, for the operator
 * @param by       who started it or last drove it (user@host)
 * @param settings how its waves are gated and budgeted
 * @param clusters every cluster, in the rollout's order, with its wave
 */
public record RolloutRecord(String id, RolloutState state, Optional<String> reason, Instant created, Instant updated,
                            String by, Settings settings, List<Cluster> clusters) {
    /** The version of the record's JSON document. */
    public static final int VERSION = 1;
    private static final ObjectMapper JSON = new ObjectMapper();

    public RolloutRecord {
        clusters = List.copyOf(clusters);
    }

    /**
     * How the rollout's waves are run.
     *
     * @param waves            the waves as the operator gave them ({@code 1,3,6}, or {@code by label site})
     * @param wavesBy          the label whose values are the waves ({@code --waves-by site}); absent in a
     *                         record of sized waves (and so in every record written before --waves-by)
     * @param parallel         clusters of a wave applied at once
     * @param maxFailures      the failure budget of a wave as given ({@code 0}, {@code 2}, {@code 10%})
     * @param validateCount    health checks of each applied cluster
     * @param validateInterval time between them
     * @param soak             time after the checks before the last one
     * @param pauseAfterWave   pause after every wave but the last
     */
    public record Settings(String waves, Optional<String> wavesBy, int parallel, String maxFailures, int validateCount,
                           Duration validateInterval, Duration soak, boolean pauseAfterWave) {
        /** Written into {@code into}, as the record and a saved rollout keep them (schemas/rollout.schema.json). */
        public void writeTo(ObjectNode into) {
            into.put("waves", waves);
            wavesBy.ifPresent(label -> into.put("waves_by", label));
            into.put("parallel", parallel);
            into.put("max_failures", maxFailures);
            into.put("validate_count", validateCount);
            into.put("validate_interval_seconds", validateInterval.toMillis() / 1000.0);
            into.put("soak_seconds", soak.toMillis() / 1000.0);
            into.put("pause_after_wave", pauseAfterWave);
        }

        /** As {@link #writeTo} wrote them. */
        public static Settings of(JsonNode s) {
            // waves_by came within version 1: a record without it is one of sized waves.
            Optional<String> wavesBy = s.hasNonNull("waves_by") ? Optional.of(s.path("waves_by").asText()) : Optional.empty();
            return new Settings(s.path("waves").asText(), wavesBy, s.path("parallel").asInt(1), s.path("max_failures").asText("0"),
                    s.path("validate_count").asInt(), Duration.ofMillis(Math.round(s.path("validate_interval_seconds").asDouble() * 1000)),
                    Duration.ofMillis(Math.round(s.path("soak_seconds").asDouble() * 1000)), s.path("pause_after_wave").asBoolean());
        }
    }

    /**
     * One cluster of the rollout.
     *
     * @param spec      its spec's path as given (resolved where the command runs)
     * @param inventory its inventory's path as given
     * @param wave      its wave, from 1
     * @param error     why it failed
     * @param steps     steps its apply ran
     * @param seconds   its apply and gate, in seconds
     * @param reviewed  in a rollout saved with {@code rollout plan --out}: the plan of it that was reviewed,
     *                  which its apply must find again under its lock (also when the rollout is resumed)
     */
    public record Cluster(String name, String spec, String inventory, int wave, ClusterState state, Optional<String> error,
                          int steps, double seconds, Optional<ReviewedPlan> reviewed) {
        /** A cluster of a rollout that was not saved: whatever its plan is when its turn comes is applied. */
        public Cluster(String name, String spec, String inventory, int wave, ClusterState state, Optional<String> error,
                       int steps, double seconds) {
            this(name, spec, inventory, wave, state, error, steps, seconds, Optional.empty());
        }

        public Cluster with(ClusterState newState, Optional<String> newError, int newSteps, double newSeconds) {
            return new Cluster(name, spec, inventory, wave, newState, newError, newSteps, newSeconds, reviewed);
        }

        public Cluster with(ClusterState newState) {
            return with(newState, newState == ClusterState.FAILED ? error : Optional.empty(), steps, seconds);
        }
    }

    /** How many waves the rollout has. */
    public int waveCount() {
        return clusters.stream().mapToInt(Cluster::wave).max().orElse(0);
    }

    /** The clusters of wave {@code wave}, in the rollout's order. */
    public List<Cluster> wave(int wave) {
        return clusters.stream().filter(c -> c.wave() == wave).toList();
    }

    public Optional<Cluster> cluster(String name) {
        return clusters.stream().filter(c -> c.name().equals(name)).findFirst();
    }

    /** This record with one cluster changed. */
    public RolloutRecord withCluster(String name, UnaryOperator<Cluster> change) {
        List<Cluster> changed = new ArrayList<>();
        for (Cluster c : clusters) {
            changed.add(c.name().equals(name) ? change.apply(c) : c);
        }
        return new RolloutRecord(id, state, reason, created, Instant.now(), by, settings, changed);
    }

    /** This record in {@code newState}, for {@code why}. */
    public RolloutRecord withState(RolloutState newState, Optional<String> why) {
        return new RolloutRecord(id, newState, why, created, Instant.now(), by, settings, clusters);
    }

    /** This record, driven now by {@code driver}. */
    public RolloutRecord drivenBy(String driver) {
        return new RolloutRecord(id, state, reason, created, Instant.now(), driver, settings, clusters);
    }

    public byte[] toJson() {
        ObjectNode root = JSON.createObjectNode();
        root.put("version", VERSION);
        root.put("id", id);
        root.put("state", state.label());
        reason.ifPresent(r -> root.put("reason", r));
        root.put("created", created.toString());
        root.put("updated", updated.toString());
        root.put("by", by);
        settings.writeTo(root.putObject("settings"));
        ArrayNode list = root.putArray("clusters");
        for (Cluster c : clusters) {
            ObjectNode n = list.addObject();
            n.put("name", c.name());
            n.put("spec", c.spec());
            n.put("inventory", c.inventory());
            n.put("wave", c.wave());
            n.put("state", c.state().label());
            c.error().ifPresent(e -> n.put("error", e));
            n.put("steps", c.steps());
            n.put("seconds", Math.round(c.seconds() * 10) / 10.0);
            c.reviewed().ifPresent(r -> {
                ObjectNode saved = n.putObject("saved_plan");
                saved.put("fingerprint", r.fingerprint());
                r.newClusterToken().ifPresent(t -> saved.put("bootstrap_token", t));
            });
        }
        try {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root).concat("\n").getBytes(StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A saved rollout's cluster's reviewed plan, as {@link #toJson} wrote it (absent: none). */
    private static Optional<ReviewedPlan> reviewed(JsonNode saved) {
        if (saved.isMissingNode() || saved.isNull()) {
            return Optional.empty();
        }
        String token = saved.path("bootstrap_token").asText("");
        if (!saved.path("fingerprint").isTextual() || (!token.isEmpty() && !ReviewedPlan.TOKEN.matcher(token).matches())) {
            throw new IllegalStateException("saved_plan: not a fingerprint and a cluster token as etcdwright writes them");
        }
        return Optional.of(new ReviewedPlan(saved.path("fingerprint").asText(), token.isEmpty() ? Optional.empty() : Optional.of(token)));
    }

    /** Reads a record written by {@link #toJson}; {@code what} names it in the error of one that is not. */
    public static RolloutRecord parse(byte[] content, String what) {
        try {
            JsonNode root = JSON.readTree(content);
            if (root == null || root.path("version").asInt() != VERSION) {
                throw new IllegalStateException(what + " is not a rollout record of version " + VERSION);
            }
            Settings settings = Settings.of(root.path("settings"));
            List<Cluster> clusters = new ArrayList<>();
            for (JsonNode n : root.path("clusters")) {
                clusters.add(new Cluster(n.path("name").asText(), n.path("spec").asText(), n.path("inventory").asText(),
                        n.path("wave").asInt(), ClusterState.valueOf(n.path("state").asText().toUpperCase(java.util.Locale.ROOT)),
                        n.hasNonNull("error") ? Optional.of(n.path("error").asText()) : Optional.empty(),
                        n.path("steps").asInt(), n.path("seconds").asDouble(), reviewed(n.path("saved_plan"))));
            }
            return new RolloutRecord(root.path("id").asText(),
                    RolloutState.valueOf(root.path("state").asText().toUpperCase(java.util.Locale.ROOT)),
                    root.hasNonNull("reason") ? Optional.of(root.path("reason").asText()) : Optional.empty(),
                    Instant.parse(root.path("created").asText()), Instant.parse(root.path("updated").asText()),
                    root.path("by").asText(), settings, clusters);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException(what + " cannot be read as a rollout record: " + e.getMessage(), e);
        }
    }
}
